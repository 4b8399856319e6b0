import Foundation
@testable import RepartoConfiguration
import Testing

/// `.reparto/env` found in the working directory is read only when it is the current user's own
/// and only they may write it; executables and migrations never come from an env file.
@Suite(.timeLimit(.minutes(1)))
struct EnvFileSafetyTests {
    func defaultFile(mode: mode_t) throws -> (TemporaryDirectory, String) {
        let directory = try TemporaryDirectory()
        let path = try directory.write("A=1\n", to: EnvFile.defaultPath)
        #expect(chmod(path, mode) == 0)
        return (directory, path)
    }

    @Test(arguments: [(mode_t(0o664), "its group may write it (mode 664)"),
                      (mode_t(0o646), "other users may write it (mode 646)"),
                      (mode_t(0o666), "its group and other users may write it (mode 666)")])
    func aFileOthersMayWriteIsRefused(_ mode: mode_t, _ why: String) throws {
        let (directory, path) = try defaultFile(mode: mode)
        let error = #expect(throws: ConfigurationError.self) {
            try EnvFile.locate(explicitPath: nil, directory: directory.url.path)
        }
        #expect(error == .unsafeEnvFile(path: path, reason: why + "; chmod go-w it"))
        let line = try #require(error?.description)
        #expect(line.hasPrefix("not reading the env file \(path): "))
        #expect(!line.contains("\n"))
        #expect(throws: ConfigurationError.self) { try ConfigurationValues.load(environment: [:], directory: directory.url.path) }
    }

    @Test(arguments: [mode_t(0o600), mode_t(0o644), mode_t(0o640)])
    func theOwnersFileOnlyTheyMayWriteIsRead(_ mode: mode_t) throws {
        let (directory, _) = try defaultFile(mode: mode)
        #expect(try EnvFile.locate(explicitPath: nil, directory: directory.url.path)?.values == ["A": "1"])
    }

    @Test func someoneElsesFileIsRefused() throws {
        let (directory, path) = try defaultFile(mode: 0o600)
        // The owner check itself, for a file this user owns, against another uid.
        let error = #expect(throws: ConfigurationError.self) { try EnvFile.readIfSafe(path, owner: geteuid() &+ 1) }
        #expect(error == .unsafeEnvFile(path: path, reason: "it is owned by uid \(geteuid()), not by the current user (uid \(geteuid() &+ 1))"))
        withExtendedLifetime(directory) {}
    }

    @Test func someoneElsesFileIsRefusedWhereChownWorks() throws {
        let (directory, path) = try defaultFile(mode: 0o644)
        // Only root can give a file away; elsewhere the test above covers the rule.
        guard geteuid() == 0 else { return }
        #expect(chown(path, 65534, 65534) == 0)
        #expect(throws: ConfigurationError.unsafeEnvFile(path: path, reason: "it is owned by uid 65534, not by the current user (uid 0)")) {
            try EnvFile.locate(explicitPath: nil, directory: directory.url.path)
        }
    }

    @Test func aDirectoryInItsPlaceIsRefused() throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.path(EnvFile.defaultPath), withIntermediateDirectories: true)
        #expect(throws: ConfigurationError.unsafeEnvFile(path: directory.path(EnvFile.defaultPath), reason: "it is not a regular file")) {
            try EnvFile.locate(explicitPath: nil, directory: directory.url.path)
        }
    }

    @Test func executablesAndMigrationsNeverComeFromAnEnvFile() {
        let file = EnvFile(path: ".reparto/env", values: [
            "ESPEAK_NG_PATH": "/tmp/evil/espeak-ng", "REPARTO_FFMPEG": "/tmp/evil/ffmpeg",
            "REPARTO_MIGRATIONS": "/tmp/evil/migrations", "PATH": "/tmp/evil", "REPARTO_ASSETS": "/srv/assets",
        ])
        let values = ConfigurationValues(environment: [:], envFile: file)
        for name in ["ESPEAK_NG_PATH", "REPARTO_FFMPEG", "REPARTO_MIGRATIONS", "PATH"] {
            #expect(values[name] == nil, "\(name) is not read from the env file")
            #expect(values.variables[name] == nil)
            #expect(values.layer(of: name) == nil)
        }
        #expect(values["REPARTO_ASSETS"] == "/srv/assets", "other variables still come from it")

        let fromProcess = ConfigurationValues(flags: ["REPARTO_MIGRATIONS": "/flag/migrations"],
                                              environment: ["REPARTO_FFMPEG": "/usr/bin/ffmpeg"], envFile: file)
        #expect(fromProcess["REPARTO_FFMPEG"] == "/usr/bin/ffmpeg")
        #expect(fromProcess["REPARTO_MIGRATIONS"] == "/flag/migrations")
        #expect(fromProcess.variables["ESPEAK_NG_PATH"] == nil)
    }
}
