extension ScreenplayDocument {
    /// Assigns `chapterIndex` and `orderIndex` to every element: chapter 0 until the first
    /// level-2 section heading; each level-2 heading starts the next chapter and has
    /// orderIndex 1; orderIndex counts from 1 inside each chapter.
    public mutating func renumber() {
        elements.renumber()
    }
}

extension Array where Element == Screenplay.Element {
    /// See ``ScreenplayDocument/renumber()``.
    mutating func renumber() {
        var chapter = 0
        var order = 0
        for i in indices {
            if self[i].type == .sectionHeading && self[i].level == 2 {
                chapter += 1
                order = 1
            } else {
                order += 1
            }
            self[i].chapterIndex = chapter
            self[i].orderIndex = order
        }
    }
}
