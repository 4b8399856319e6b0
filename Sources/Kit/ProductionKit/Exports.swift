// What a production type's code uses everywhere, with one `import ProductionKit`: the runtime
// (kinds, plans, clients), the CLI's option groups and errors, and terminal text.
@_exported import ArgumentParser
@_exported import CommandOptions
@_exported import RepartoRuntime
@_exported import TerminalText
