/// The keys `play` answers on a terminal, decoded from the bytes a terminal sends.
enum PlayKey: Equatable {
    case pauseResume, toggleDirection, back, forward, loopStart, loopEnd, loopOnOff, quit

    /// Splits `bytes` into keys; `pending` carries an escape sequence cut between two reads.
    static func decode(_ bytes: [UInt8], pending: inout [UInt8]) -> [PlayKey] {
        var keys: [PlayKey] = []
        var input = pending + bytes
        pending = []
        while let byte = input.first {
            if byte == 0x1B {
                // ESC [ C / ESC O C (right), ESC [ D / ESC O D (left); anything else is dropped.
                let introducer = input.count > 1 && (input[1] == UInt8(ascii: "[") || input[1] == UInt8(ascii: "O"))
                if input.count == 1 || (introducer && input.count == 2) {
                    pending = input  // the rest of the sequence comes with the next read
                    break
                }
                guard introducer else {
                    input.removeFirst()
                    continue
                }
                if input[2] == UInt8(ascii: "C") { keys.append(.forward) }
                if input[2] == UInt8(ascii: "D") { keys.append(.back) }
                input.removeFirst(3)
                continue
            }
            input.removeFirst()
            switch byte {
            case UInt8(ascii: " "): keys.append(.pauseResume)
            case UInt8(ascii: "r"), UInt8(ascii: "R"): keys.append(.toggleDirection)
            case UInt8(ascii: "["): keys.append(.loopStart)
            case UInt8(ascii: "]"): keys.append(.loopEnd)
            case UInt8(ascii: "l"), UInt8(ascii: "L"): keys.append(.loopOnOff)
            case UInt8(ascii: "q"), UInt8(ascii: "Q"), 0x03, 0x04: keys.append(.quit)
            default: break
            }
        }
        return keys
    }
}
