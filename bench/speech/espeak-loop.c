/* The strictest peer of Reparto's speech benchmark: libespeak-ng called directly from C, one
 * process, the voice loaded once, every line of LINES written to OUTDIR/N.wav (16-bit mono PCM).
 * This is what Reparto's library engine does minus everything Reparto adds (jobs, hashing,
 * atomic writes, fsync, metadata).
 *
 *   cc -O2 -o espeak-loop bench/speech/espeak-loop.c -lespeak-ng
 *   ./espeak-loop VOICE OUTDIR LINES
 */
#include <espeak-ng/espeak_ng.h>
#include <espeak-ng/speak_lib.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static short *samples;
static size_t count, capacity;

static int collect(short *wav, int n, espeak_EVENT *events) {
    (void)events;
    if (wav == NULL || n <= 0) return 0;
    if (count + (size_t)n > capacity) {
        capacity = (count + (size_t)n) * 2;
        samples = realloc(samples, capacity * sizeof(short));
        if (samples == NULL) { perror("realloc"); exit(1); }
    }
    memcpy(samples + count, wav, (size_t)n * sizeof(short));
    count += (size_t)n;
    return 0;
}

static void le32(unsigned char *p, uint32_t v) { p[0] = v; p[1] = v >> 8; p[2] = v >> 16; p[3] = v >> 24; }
static void le16(unsigned char *p, uint16_t v) { p[0] = v; p[1] = v >> 8; }

static int write_wav(const char *path, int rate) {
    unsigned char h[44];
    uint32_t bytes = (uint32_t)(count * 2);
    memcpy(h, "RIFF", 4); le32(h + 4, 36 + bytes); memcpy(h + 8, "WAVEfmt ", 8);
    le32(h + 16, 16); le16(h + 20, 1); le16(h + 22, 1); le32(h + 24, rate); le32(h + 28, rate * 2);
    le16(h + 32, 2); le16(h + 34, 16); memcpy(h + 36, "data", 4); le32(h + 40, bytes);
    FILE *f = fopen(path, "wb");
    if (f == NULL) return -1;
    int ok = fwrite(h, 1, 44, f) == 44 && fwrite(samples, 2, count, f) == count;
    return (fclose(f) == 0 && ok) ? 0 : -1;
}

int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: %s VOICE OUTDIR LINES\n", argv[0]); return 2; }
    espeak_ng_InitializePath(NULL);
    espeak_ng_ERROR_CONTEXT context = NULL;
    if (espeak_ng_Initialize(&context) != ENS_OK) { fprintf(stderr, "espeak-ng: cannot initialize\n"); return 1; }
    if (espeak_ng_InitializeOutput(ENOUTPUT_MODE_SYNCHRONOUS, 0, NULL) != ENS_OK) return 1;
    espeak_SetSynthCallback(collect);
    if (espeak_ng_SetVoiceByName(argv[1]) != ENS_OK) {
        espeak_VOICE selector;
        memset(&selector, 0, sizeof selector);
        selector.languages = argv[1];
        if (espeak_ng_SetVoiceByProperties(&selector) != ENS_OK) { fprintf(stderr, "unknown voice %s\n", argv[1]); return 1; }
    }
    int rate = espeak_ng_GetSampleRate();
    FILE *lines = fopen(argv[3], "r");
    if (lines == NULL) { perror(argv[3]); return 1; }
    char line[65536], path[4096];
    int n = 0;
    while (fgets(line, sizeof line, lines) != NULL) {
        line[strcspn(line, "\n")] = 0;
        if (line[0] == 0) continue;
        count = 0;
        if (espeak_ng_Synthesize(line, strlen(line) + 1, 0, POS_CHARACTER, 0, espeakCHARS_UTF8 | espeakENDPAUSE, NULL, NULL) != ENS_OK) return 1;
        snprintf(path, sizeof path, "%s/%d.wav", argv[2], ++n);
        if (write_wav(path, rate) != 0) { perror(path); return 1; }
    }
    fclose(lines);
    return 0;
}
