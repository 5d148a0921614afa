import Testing
@testable import MatrixCLI
import MatrixModel

/// `--clock xcode` alone takes the catalog's `_timeRate`; when that is real time, the run says so.
/// Apple: https://developer.apple.com/documentation/storekittest/sktestsession/timerate-swift.enum
@Suite("Run: Xcode's clock at real time")
struct XcodeClockNoteTests {
    func matrix(timeRate: Int?) -> Matrix {
        Matrix(name: "m", app: AppInfo(bundleId: "com.example.app"),
               catalog: StoreKitConfiguration(settings: .init(timeRate: timeRate)), tiers: [], accounts: [], cases: [])
    }

    func note(_ clock: String?, timeRate: Int?) throws -> String? {
        let matrix = matrix(timeRate: timeRate)
        return RunCommand.xcodeClockNote(clock, schedule: try RunCommand.schedule(clock, matrix: matrix), matrix: matrix)
    }

    @Test("--clock xcode with no _timeRate or _timeRate 0 notes real time, with a deprecated rate names it; a fast rate, xcode:0 and other clocks get no note")
    func realTimeNote() throws {
        let none = try #require(try note("xcode", timeRate: nil))
        #expect(none.hasPrefix("note: --clock xcode takes the catalog's time rate, and the catalog sets no _timeRate: "))
        #expect(none.contains("at real time (xcode:0, Xcode's default)") && none.contains("--clock xcode:13"))
        #expect(try note("xcode", timeRate: 0)?.contains("the catalog sets _timeRate 0") == true)
        #expect(try note("XCODE", timeRate: nil) != nil, "--clock is read without regard to case")
        #expect(try note("xcode", timeRate: 13) == nil, "the catalog's fast rate is used")
        let deprecated = try #require(try note("xcode", timeRate: 4))
        #expect(deprecated.contains("_timeRate 4: oneMinuteIsOneDay, which Apple deprecated (its replacement is monthlyRenewalEveryThirtyMinutes"),
                "\(deprecated)")
        #expect(try note("xcode:0", timeRate: nil) == nil, "real time was asked for by name")
        for clock in [nil, "real", "xcode:1005", "sandbox:5", "testflight"] {
            #expect(try note(clock, timeRate: nil) == nil, "\(clock ?? "no clock")")
        }
    }
}
