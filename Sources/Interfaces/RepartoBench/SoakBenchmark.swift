import Foundation
import RepartoRuntime
import Logging
import Postgres

/// `reparto bench soak`: rounds of no-op jobs against a live cluster, with the resident memory and
/// open descriptors of every worker on this host after each round, and of this process (the
/// producer, with its ``JobPublisher``), so a per-job leak shows as a slope. Workers and producers
/// run for weeks: RSS must stay flat once warm (the goal is ±5 MB from 50k to 1M jobs).
public struct SoakBenchmark: Sendable {
    /// One worker process's resources.
    public struct ProcessSample: Sendable, Hashable {
        /// Resident memory, KiB.
        public var rssKiB: Int
        /// Open file descriptors.
        public var descriptors: Int
    }

    /// One round's figures.
    public struct Sample: Sendable, Hashable {
        /// Jobs finished so far (all rounds).
        public var jobs: Int
        /// This round's throughput and p99 latency (ms).
        public var jobsPerSecond: Double
        public var p99: Double
        /// Per worker process on this host: RSS in KiB and open descriptors.
        public var workers: [Int32: ProcessSample]
        /// This process, which enqueues and publishes the jobs.
        public var producer: ProcessSample

        /// `jobs  rate/s  p99 ms  pid: RSS MB, fds …`
        public var line: String {
            let rate = String(format: "%8.0f/s  p99 %7.1f ms", jobsPerSecond, p99)
            let processes = workers.keys.sorted().map { pid -> String in
                let w = workers[pid]!
                return "\(pid): \(String(format: "%.1f", Double(w.rssKiB) / 1024)) MB, \(w.descriptors) fds"
            }
            let own = "producer: \(String(format: "%.1f", Double(producer.rssKiB) / 1024)) MB, \(producer.descriptors) fds"
            return String(format: "%9d jobs  ", jobs) + rate + "  " + (processes + [own]).joined(separator: "  ")
        }
    }

    /// Jobs in all.
    public var jobs: Int
    /// Jobs per round (one sample after each).
    public var every: Int
    /// Seconds a round may take.
    public var timeout: Double

    /// A soak of `jobs` no-op jobs sampled every `every`.
    public init(jobs: Int, every: Int, timeout: Double) {
        (self.jobs, self.every, self.timeout) = (jobs, every, timeout)
    }

    /// Runs the rounds, calling `report` after each; returns every sample.
    /// - Parameter client: enqueues the rounds (with the publisher the cluster's producers use).
    public func run(client: JobClient, report: (Sample) -> Void) async throws -> [Sample] {
        let postgres = client.postgres
        var samples: [Sample] = []
        var done = 0
        let host = ProcessInfo.processInfo.hostName
        while done < jobs {
            let round = min(every, jobs - done)
            let result = try await JobsBenchmark(count: round, rate: nil, batch: 1000, timeout: timeout).run(client: client)
            done += round
            var workers: [Int32: ProcessSample] = [:]
            for pid in try await BenchmarkReads.liveWorkerPIDs(host: host, on: postgres) {
                if let rss = Self.rssKiB(pid) { workers[pid] = ProcessSample(rssKiB: rss, descriptors: Self.descriptors(pid)) }
            }
            let me = getpid()
            let producer = ProcessSample(rssKiB: Self.rssKiB(me) ?? 0, descriptors: Self.descriptors(me))
            let sample = Sample(jobs: done, jobsPerSecond: result.jobsPerSecond, p99: result.p99, workers: workers, producer: producer)
            samples.append(sample)
            report(sample)
        }
        return samples
    }

    /// The growth of each worker's RSS between the first and the last sample, in MB, with the
    /// jobs between them: what a leak looks like.
    public static func growth(_ samples: [Sample]) -> String {
        guard let first = samples.first, let last = samples.last, samples.count > 1 else { return "one sample: no growth to report" }
        let pids = Set(first.workers.keys).intersection(last.workers.keys).sorted()
        let jobs = last.jobs - first.jobs
        func change(_ name: String, _ before: ProcessSample, _ after: ProcessSample) -> String {
            let mb = Double(after.rssKiB - before.rssKiB) / 1024
            let fds = after.descriptors - before.descriptors
            return "\(name): RSS \(String(format: "%+.1f", mb)) MB over \(jobs) jobs "
                + "(\(String(format: "%+.0f", mb * 1024 * 1024 / Double(max(jobs, 1)))) bytes a job), descriptors \(fds >= 0 ? "+" : "")\(fds)"
        }
        let workers = pids.isEmpty ? ["no worker of this host was alive in the first and last samples"]
            : pids.map { change("worker \($0)", first.workers[$0]!, last.workers[$0]!) }
        return (workers + [change("producer", first.producer, last.producer)]).joined(separator: "\n")
    }

    static func rssKiB(_ pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        }
        return nil
    }

    static func descriptors(_ pid: Int32) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? 0
    }
}
