import ReverseAudioCore
/// Which share a worker takes when a batch engine starts it (`--shard auto`), read from the
/// variables the engine sets: a Slurm job array, a Kubernetes Indexed Job, an AWS Batch array job.
package enum ShardEngine: String, Sendable, CaseIterable {
    /// `SLURM_ARRAY_TASK_ID`, `SLURM_ARRAY_TASK_COUNT` (and `SLURM_ARRAY_TASK_MIN`,
    /// `SLURM_ARRAY_TASK_STEP` when the array does not start at 0 or skips).
    case slurm = "Slurm job array"
    /// `JOB_COMPLETION_INDEX` (0-based); the count is the Job's `completions`, which Kubernetes
    /// does not put in the environment: it comes from `--shard-count`.
    case kubernetes = "Kubernetes Indexed Job"
    /// `AWS_BATCH_JOB_ARRAY_INDEX` (0-based); the array size is not in the environment either.
    case awsBatch = "AWS Batch array job"

    /// The variable whose presence says the engine started this process.
    package var indexVariable: String {
        switch self {
        case .slurm: return "SLURM_ARRAY_TASK_ID"
        case .kubernetes: return "JOB_COMPLETION_INDEX"
        case .awsBatch: return "AWS_BATCH_JOB_ARRAY_INDEX"
        }
    }

    /// What `--shard auto` found: the share, the engine and the variables it was read from.
    package struct Detection: Sendable, Equatable {
        /// The share this process takes.
        package let shard: Shard
        /// The engine that set the variables.
        package let engine: ShardEngine
        /// "NAME=value" for each variable read (and `--shard-count N` when the count came from it).
        package let sources: [String]

        /// One line for standard error: which share, and from where.
        package var summary: String { "shard \(shard) from the \(engine.rawValue) (\(sources.joined(separator: ", ")))" }
    }

    /// Why `--shard auto` could not tell the share.
    package struct DetectionError: Error, Sendable, Equatable, CustomStringConvertible {
        /// One line naming the variable and what was wrong with it.
        package let description: String
    }

    /// The share this process takes, from `environment` (engines are tried in the order Slurm,
    /// Kubernetes, AWS Batch; the first whose index variable is set is used) and `count` (from
    /// `--shard-count`: needed where the engine does not say how many tasks there are, and
    /// preferred where it does).
    package static func detect(in environment: [String: String], count: Int? = nil) throws(DetectionError) -> Detection {
        guard let engine = allCases.first(where: { environment[$0.indexVariable] != nil }) else {
            throw DetectionError(description: "--shard auto found none of " + allCases.map(\.indexVariable).joined(separator: ", ")
                + " in the environment: give --shard K/N")
        }
        func value(_ name: String) throws(DetectionError) -> Int {
            guard let text = environment[name], let number = Shard.number(text) else {
                if let text = environment[name], !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }) {
                    throw DetectionError(description: "--shard auto: \(name) is \(text), too large for a share (at most \(Shard.largestNumber))")
                }
                throw DetectionError(description: "--shard auto: \(name) is \(environment[name].map { "'\($0)'" } ?? "not set"), not a number")
            }
            return number
        }
        var index = try value(engine.indexVariable)
        var sources = ["\(engine.indexVariable)=\(index)"]
        var total = count
        if engine == .slurm {
            // An array 1-4 or 0-6:2 still makes shares 0 to 3.
            let minimum = environment["SLURM_ARRAY_TASK_MIN"] != nil ? try value("SLURM_ARRAY_TASK_MIN") : 0
            let step = environment["SLURM_ARRAY_TASK_STEP"] != nil ? try value("SLURM_ARRAY_TASK_STEP") : 1
            guard index >= minimum, step >= 1, (index - minimum) % step == 0 else {
                throw DetectionError(description: "--shard auto: SLURM_ARRAY_TASK_ID=\(index) is not in the array's range (SLURM_ARRAY_TASK_MIN=\(minimum), SLURM_ARRAY_TASK_STEP=\(step))")
            }
            if minimum != 0 || step != 1 {
                index = (index - minimum) / step
                sources.append("SLURM_ARRAY_TASK_MIN=\(minimum)")
                if step != 1 { sources.append("SLURM_ARRAY_TASK_STEP=\(step)") }
            }
            if total == nil {
                let tasks = try value("SLURM_ARRAY_TASK_COUNT")
                total = tasks
                sources.append("SLURM_ARRAY_TASK_COUNT=\(tasks)")
            }
        }
        guard let total else {
            throw DetectionError(description: "--shard auto: the \(engine.rawValue) sets \(engine.indexVariable) but not how many tasks there are: give --shard-count N")
        }
        if count != nil { sources.append("--shard-count \(total)") }
        guard let shard = Shard(index: index, count: total) else {
            throw DetectionError(description: "--shard auto: share \(index) of \(total) does not exist (shares count from 0 to \(total - 1))")
        }
        return Detection(shard: shard, engine: engine, sources: sources)
    }
}
