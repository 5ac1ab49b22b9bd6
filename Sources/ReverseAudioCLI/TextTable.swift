/// Left-aligned columns for terminal output (numbers right-aligned).
struct TextTable {
    let headers: [String]
    private(set) var rows: [[String]] = []

    init(_ headers: String...) {
        self.headers = headers
    }

    mutating func add(_ cells: String...) {
        rows.append(cells)
    }

    mutating func add(_ cells: [String]) {
        rows.append(cells)
    }

    func render() -> String {
        let all = [headers] + rows
        // As many columns as the widest row (a row may hold more cells than there are headers).
        let columns = all.map(\.count).max() ?? 0
        let widths = (0..<columns).map { column in all.map { $0.indices.contains(column) ? $0[column].count : 0 }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { column, cell in
                let padding = String(repeating: " ", count: widths[column] - cell.count)
                return TextTable.isNumeric(cell) ? padding + cell : cell + padding
            }.joined(separator: "  ").trimmingTrailingSpaces()
        }
        let rule = widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")
        return ([line(headers), rule] + rows.map(line)).joined(separator: "\n")
    }

    private static func isNumeric(_ cell: String) -> Bool {
        !cell.isEmpty && cell.allSatisfy { $0.isNumber || $0 == "." || $0 == " " || $0 == "s" }
            && cell.first!.isNumber
    }
}

private extension String {
    func trimmingTrailingSpaces() -> String {
        var result = self
        while result.last == " " { result.removeLast() }
        return result
    }
}
