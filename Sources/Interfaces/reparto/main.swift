import RepartoCLI

// Keep the executable thin: everything lives in RepartoCLI, which tests can drive directly.
let command: any AsyncParsableCommandEntry.Type = RepartoCommand.self
await command.runMain()
