import Testing
@testable import ReverseAudioServer

/// The one range a `Range` header asks of a body (RFC 9110 §14.2), as `<audio>` and `curl -r`
/// send it: each case is a header a browser or a client really sends.
@Suite struct ByteRangeTests {
    @Test func anOpenEndedRangeRunsToTheLastByte() {
        #expect(ByteRange(header: "bytes=0-", size: 1000) == .part(0...999))
        #expect(ByteRange(header: "bytes=500-", size: 1000) == .part(500...999))
    }

    @Test func aClosedRangePastTheEndStopsAtTheLastByte() {
        #expect(ByteRange(header: "bytes=10-19", size: 1000) == .part(10...19))
        #expect(ByteRange(header: "bytes=990-2000", size: 1000) == .part(990...999))
    }

    @Test func aSuffixIsTheLastBytes() {
        #expect(ByteRange(header: "bytes=-100", size: 1000) == .part(900...999))
        #expect(ByteRange(header: "bytes=-5000", size: 1000) == .part(0...999))
        #expect(ByteRange(header: "bytes=-0", size: 1000) == .unsatisfiable)
    }

    @Test func aStartAtOrPastTheEndIsUnsatisfiable() {
        #expect(ByteRange(header: "bytes=1000-", size: 1000) == .unsatisfiable)
        #expect(ByteRange(header: "bytes=99999999999999999999999-", size: 1000) == .unsatisfiable)
        #expect(ByteRange(header: "bytes=0-", size: 0) == .unsatisfiable)
    }

    @Test func whatDoesNotParseOrAsksSeveralRangesGetsTheWholeBody() {
        for header in [nil, "", "items=0-9", "bytes=0-9,20-29", "bytes=a-b", "bytes=5", "bytes=9-3"] {
            #expect(ByteRange(header: header, size: 1000) == .whole, "header \(String(describing: header))")
        }
    }
}
