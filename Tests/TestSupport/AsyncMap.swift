/// `map` whose transform awaits (a decode by ffmpeg per element), one element after another.
extension Sequence {
    public func asyncMap<Transformed>(_ transform: (Element) async throws -> Transformed) async rethrows -> [Transformed] {
        var transformed: [Transformed] = []
        for element in self { transformed.append(try await transform(element)) }
        return transformed
    }
}
