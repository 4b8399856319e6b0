import RepartoCLI

await RepartoCommand.main()
