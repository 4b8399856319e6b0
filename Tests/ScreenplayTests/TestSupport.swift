import Foundation
@testable import Screenplay

/// Loads a fixture from the test bundle.
func fixture(_ name: String) throws -> [UInt8] {
    let url = try #require(Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Fixtures"))
    return [UInt8](try Data(contentsOf: url))
}

import Testing

/// Builds an expected element.
func el(_ type: ElementType, _ text: String, _ chapter: Int, _ order: Int, level: Int? = nil,
        scene: String? = nil, name: String? = nil, ext: String? = nil, dual: Bool? = nil) -> Element {
    Element(type: type, text: text, chapterIndex: chapter, orderIndex: order, level: level,
            sceneNumber: scene, name: name, extension: ext, dual: dual)
}

/// Parses Fountain and returns its elements.
func fountain(_ text: String) -> [Element] { FountainParser().parse(text).elements }

/// The (type, text) pairs of a Fountain snippet.
func kinds(_ text: String) -> [String] {
    fountain(text).map { "\($0.type.rawValue):\($0.text)" }
}
