extension RunPlan {
    /// The cases one test account runs, one after another, within a group.
    public struct Lane: Sendable, Hashable, Encodable {
        /// 1-based account number; the same number is the same account in every group.
        public var account: Int
        /// Case IDs in the order the account runs them.
        public var cases: [String]
        /// The lane's waiting time, ms: the sum of its cases'.
        public var waitMs: Int64
        /// The aliases of the lane's cases that share its one test account (map them all to it), in run order.
        public var sharedAliases: [String]

        /// A lane of `cases` waiting `waitMs`.
        public init(account: Int, cases: [String] = [], waitMs: Int64 = 0, sharedAliases: [String] = []) {
            self.account = account
            self.cases = cases
            self.waitMs = waitMs
            self.sharedAliases = sharedAliases
        }
    }

    /// Cases that need the same app-wide settings: they run in parallel over the lanes; groups run one after
    /// another, each after its ``settings`` are made.
    public struct Group: Sendable, Hashable, Encodable {
        /// 1-based position in the run.
        public var index: Int
        /// The app-wide settings the group's cases need (empty when none does).
        public var appSettings: AppSettings
        /// What to set before the group starts, one line each, e.g. "set the billing grace period to 16 days in
        /// App Store Connect".
        public var settings: [String]
        /// The group's case IDs, in matrix order.
        public var cases: [String]
        /// Every lane, including idle ones.
        public var lanes: [Lane]
        /// The group's waiting time with one account, ms.
        public var sequentialMs: Int64
        /// The group's waiting time over the lanes: the longest lane's, ms.
        public var parallelMs: Int64
    }

    /// One unit of scheduling: the cases of a cluster (cases linked by a shared alias) that fall in one group.
    struct Job {
        var cluster: Int
        var cases: [Int]
        var ms: Int64
    }

    /// Spreads jobs over `accounts` lanes, longest first, each onto the lane that is free soonest (lowest
    /// number on a tie): the longest-processing-time rule, within 4/3 of the best possible longest lane.
    /// Jobs of equal length keep their order.
    public static func lanes(_ jobs: [(id: String, ms: Int64)], accounts: Int) -> [Lane] {
        var lanes = (1...max(1, accounts)).map { Lane(account: $0) }
        let order = jobs.enumerated().sorted { ($0.element.ms, -$0.offset) > ($1.element.ms, -$1.offset) }
        for (_, job) in order {
            guard let index = lanes.indices.min(by: { (lanes[$0].waitMs, $0) < (lanes[$1].waitMs, $1) }) else { continue }
            lanes[index].cases.append(job.id)
            lanes[index].waitMs += job.ms
        }
        return lanes
    }

    /// Groups the cases that run (not skipped) by the app-wide settings they need and spreads each group over
    /// `accounts` lanes.
    ///
    /// - Cases that share an alias share a test account, so they run on one lane, in matrix order, in every
    ///   group (a cluster).
    /// - Every distinct non-empty ``AppSettings`` without a price increase is a group, in order of first use;
    ///   each case that raises a price is a group of its own, after those, and runs alone.
    /// - Within a group, a cluster placed in an earlier group keeps its lane and is placed first; the other
    ///   clusters go longest first to the lane free soonest.
    /// - Cases that need no app-wide setting fill the groups last, longest first, each where it lengthens the
    ///   run least, then onto the lane with the fewest cases over all groups (people take time for every case,
    ///   waiting or not), then the least busy: where lengths differ this is the longest-processing-time rule of
    ///   ``lanes(_:accounts:)``. With no group at all they form one group without settings.
    ///
    /// - Returns: the groups, and for each case (by index) its group and lane.
    static func schedule(_ cases: [CasePlan], accounts: Int, settings: (AppSettings) -> [String])
        -> (groups: [Group], placement: [Int: (group: Int, lane: Int)]) {
        let laneCount = max(1, accounts)
        let running = cases.indices.filter { cases[$0].skipped == nil }
        let cluster = clusters(of: running.map { ($0, cases[$0].accounts) })

        // Group keys: shared settings in order of first use, then one group per price increase.
        var keys: [AppSettings] = []
        var exclusive: [Int] = []
        for index in running where !cases[index].appSettings.isEmpty {
            if cases[index].appSettings.priceIncrease != nil {
                exclusive.append(index)
            } else if !keys.contains(cases[index].appSettings) {
                keys.append(cases[index].appSettings)
            }
        }
        // Jobs per group: a cluster's cases of that key; its cases without settings join its first keyed job.
        var jobs: [[Job]] = Array(repeating: [], count: keys.count + exclusive.count)
        var free: [Job] = []
        for members in Dictionary(grouping: running, by: { cluster[$0] ?? $0 }).values.sorted(by: { $0[0] < $1[0] }) {
            var byGroup: [Int: [Int]] = [:]
            var unkeyed: [Int] = []
            for index in members {
                let settings = cases[index].appSettings
                if let position = exclusive.firstIndex(of: index) {
                    byGroup[keys.count + position, default: []].append(index)
                } else if let position = keys.firstIndex(of: settings), !settings.isEmpty {
                    byGroup[position, default: []].append(index)
                } else {
                    unkeyed.append(index)
                }
            }
            if let first = byGroup.keys.filter({ $0 < keys.count }).min() {
                byGroup[first, default: []].append(contentsOf: unkeyed)
            } else if !unkeyed.isEmpty {
                free.append(Job(cluster: members[0], cases: unkeyed, ms: 0))
            }
            for (group, indices) in byGroup {
                jobs[group].append(Job(cluster: members[0], cases: indices.sorted(), ms: 0))
            }
        }
        let measure = { (job: Job) -> Job in
            var job = job
            job.cases.sort()
            job.ms = job.cases.reduce(0) { $0 + cases[$1].waitMs }
            return job
        }
        jobs = jobs.map { $0.map(measure) }
        free = free.map(measure)
        var groupSettings = keys + exclusive.map { cases[$0].appSettings }
        var fillable = Array(keys.indices)
        if keys.isEmpty && !free.isEmpty {
            groupSettings.insert(AppSettings(), at: 0)
            jobs.insert([], at: 0)
            fillable = [0]
        }

        var loads = Array(repeating: Array(repeating: Int64(0), count: laneCount), count: groupSettings.count)
        var order = Array(repeating: Array(repeating: [Int](), count: laneCount), count: groupSettings.count)
        var laneOf: [Int: Int] = [:]
        let longestFirst = { (a: Job, b: Job) in (a.ms, -a.cases[0]) > (b.ms, -b.cases[0]) }
        for group in jobs.indices {
            // Clusters placed in an earlier group go to their lane first; the rest fill around them.
            let pinned = jobs[group].filter { laneOf[$0.cluster] != nil }.sorted(by: longestFirst)
            for job in pinned + jobs[group].filter({ laneOf[$0.cluster] == nil }).sorted(by: longestFirst) {
                let lane = laneOf[job.cluster]
                    ?? loads[group].indices.min { (loads[group][$0], $0) < (loads[group][$1], $1) } ?? 0
                laneOf[job.cluster] = lane
                loads[group][lane] += job.ms
                order[group][lane] += job.cases
            }
        }
        for job in free.sorted(by: longestFirst) {
            var best: (cost: Int64, count: Int, load: Int64, group: Int, lane: Int)?
            for group in fillable {
                let makespan = loads[group].max() ?? 0
                // A cluster whose price-increase case already has a lane keeps it: one account, one lane.
                for lane in laneOf[job.cluster].map({ [$0] }) ?? Array(0..<laneCount) {
                    let load = loads[group][lane] + job.ms
                    let count = order.reduce(0) { $0 + $1[lane].count }
                    let candidate = (cost: max(0, load - makespan), count: count, load: load, group: group, lane: lane)
                    if best.map({ (candidate.cost, candidate.count, candidate.load, group, lane)
                        < ($0.cost, $0.count, $0.load, $0.group, $0.lane) }) ?? true {
                        best = candidate
                    }
                }
            }
            guard let best else { continue }
            loads[best.group][best.lane] += job.ms
            order[best.group][best.lane] += job.cases
        }

        var placement: [Int: (group: Int, lane: Int)] = [:]
        var groups: [Group] = []
        for group in groupSettings.indices {
            var lanes: [Lane] = []
            for lane in 0..<laneCount {
                let indices = order[group][lane]
                for index in indices { placement[index] = (group + 1, lane + 1) }
                var aliases: [String] = []
                for index in indices where cases[index].dedicated == nil {
                    for alias in cases[index].accounts where !aliases.contains(alias) { aliases.append(alias) }
                }
                lanes.append(Lane(account: lane + 1, cases: indices.map { cases[$0].id }, waitMs: loads[group][lane], sharedAliases: aliases))
            }
            let members = order[group].flatMap { $0 }.sorted()
            groups.append(Group(index: group + 1, appSettings: groupSettings[group], settings: settings(groupSettings[group]),
                                cases: members.map { cases[$0].id }, lanes: lanes,
                                sequentialMs: members.reduce(0) { $0 + cases[$1].waitMs }, parallelMs: loads[group].max() ?? 0))
        }
        return (groups, placement)
    }

    /// Connected components of items linked by a shared alias: item index → the smallest index of its component.
    static func clusters(of items: [(index: Int, aliases: [String])]) -> [Int: Int] {
        var root: [Int: Int] = [:]
        func find(_ item: Int) -> Int {
            var item = item
            while let parent = root[item], parent != item { item = parent }
            return item
        }
        var owner: [String: Int] = [:]
        for (index, aliases) in items {
            root[index] = index
            for alias in aliases {
                if let other = owner[alias] {
                    let (a, b) = (find(other), find(index))
                    root[max(a, b)] = min(a, b)
                } else {
                    owner[alias] = index
                }
            }
        }
        return Dictionary(uniqueKeysWithValues: items.map { ($0.index, find($0.index)) })
    }
}
