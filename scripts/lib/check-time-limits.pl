#!/usr/bin/perl
# Fails (exit 1, one line per offence) when a test can run without a time limit: a suite
# (`@Suite`, or a type holding `@Test` functions) that neither has `.timeLimit(...)` nor sits
# inside a suite that has one, or a `@Test` at file scope without `.timeLimit(...)`.
# Swift Testing's default is no limit: a test that hangs then holds the whole run.
#
#   scripts/lib/check-time-limits.pl Tests/**/*.swift
#
# Extensions of a limited suite (`extension FooTests { @Test … }` in another file) are limited.
use strict;
use warnings;

my @files = @ARGV;
my %source;
for my $file (@files) {
    open(my $fh, '<', $file) or die "$file: $!";
    local $/;
    my $text = <$fh>;
    close $fh;
    # Blank out comments and string literals (keeping newlines, for line numbers).
    # Raw strings (#"…"#, #"""…"""#) first: their quotes and backslashes are literal. A one-line
    # raw string runs to the last "# of its line (it may hold raw strings in an interpolation).
    $text =~ s{((\#+)"""(?:.|\n)*?"""\2|(\#+)"[^\n]*"\3|"""(?:.|\n)*?"""|"(?:\\.|[^"\\\n])*"|//[^\n]*|/\*(?:.|\n)*?\*/)}{ my $m = $1; $m =~ s/[^\n]/ /g; $m }ge;
    $source{$file} = $text;
}

# Balanced "( … )" starting at $pos (which is at "("): returns the end index (after ")").
sub balanced {
    my ($text, $pos) = @_;
    my $depth = 0;
    for (my $i = $pos; $i < length $text; $i++) {
        my $c = substr($text, $i, 1);
        $depth++ if $c eq '(';
        $depth-- if $c eq ')';
        return $i + 1 if $depth == 0;
    }
    return length $text;
}

sub line_of { my ($text, $pos) = @_; return 1 + (substr($text, 0, $pos) =~ tr/\n//); }

# Pass 1: the names of the types declared with a limited @Suite (for extensions elsewhere).
my %limited_type;
for my $file (@files) {
    my $text = $source{$file};
    while ($text =~ /\@Suite\b/g) {
        my $after = pos($text);
        my $args = '';
        if (substr($text, $after) =~ /^\s*\(/) {
            my $open = index($text, '(', $after);
            my $end = balanced($text, $open);
            $args = substr($text, $open, $end - $open);
        }
        next unless $args =~ /\.timeLimit\s*\(/;
        if (substr($text, $after) =~ /\b(?:struct|class|enum|actor)\s+(\w+)/) { $limited_type{$1} = 1; }
    }
}

# Pass 2: walk each file's scopes, token by token.
my $failures = 0;
for my $file (@files) {
    my $text = $source{$file};
    my @scopes = ({ limited => 0, type => 0, name => '' });   # file scope
    my ($pending_suite, $pending_test, $pending_type);
    pos($text) = 0;
    while (pos($text) < length $text) {
        my $at = pos($text);
        if ($text =~ /\G\@(Suite|Test)\b(\s*\()?/gc) {
            my ($kind, $paren) = ($1, $2);
            my $args = '';
            if (defined $paren) {
                my $open = pos($text) - 1;
                my $end = balanced($text, $open);
                $args = substr($text, $open, $end - $open);
                pos($text) = $end;
            }
            my $limited = $args =~ /\.timeLimit\s*\(/ ? 1 : 0;
            if ($kind eq 'Suite') { $pending_suite = { limited => $limited, pos => $at }; }
            else { $pending_test = { limited => $limited, pos => $at }; }
        } elsif ($text =~ /\G\b(struct|class|enum|actor|extension)\s+([\w.]+)/gc) {
            my ($keyword, $name) = ($1, $2);
            $name =~ s/.*\.//;
            my $explicit = $pending_suite ? $pending_suite->{limited} : 0;
            my $limited = ($scopes[-1]{limited} || $explicit || ($keyword eq 'extension' && $limited_type{$name})) ? 1 : 0;
            if ($pending_suite && !$limited) {
                printf "%s:%d: \@Suite %s has no .timeLimit (and no enclosing suite has one)\n",
                    $file, line_of($text, $pending_suite->{pos}), $name;
                $failures++;
                $limited = 1;   # one line per suite, not one per test in it
            }
            $pending_type = { limited => $limited, name => $name };
            undef $pending_suite;
        } elsif ($text =~ /\G\bfunc\b/gc) {
            if ($pending_test && !$pending_test->{limited} && !$scopes[-1]{limited}) {
                my $where = $scopes[-1]{type} ? "in $scopes[-1]{name} (an implicit suite)" : "at file scope";
                printf "%s:%d: \@Test %s has no .timeLimit (and no enclosing suite has one)\n",
                    $file, line_of($text, $pending_test->{pos}), $where;
                $failures++;
            }
            undef $pending_test;
        } elsif ($text =~ /\G\{/gc) {
            if ($pending_type) {
                push @scopes, { limited => $pending_type->{limited}, type => 1, name => $pending_type->{name} };
                undef $pending_type;
            } else {
                push @scopes, { %{ $scopes[-1] } };
            }
        } elsif ($text =~ /\G\}/gc) {
            pop @scopes if @scopes > 1;
        } elsif ($text =~ /\G(?:\w+|\s+|[^\w\s{}\@]+)/gc) {
            # anything else
        } else {
            pos($text) = $at + 1;
        }
    }
}
if ($failures) {
    print "$failures test declaration(s) without a time limit: add .timeLimit(.minutes(N)) to the \@Suite (or the file-scope \@Test)\n";
    exit 1;
}
exit 0;
