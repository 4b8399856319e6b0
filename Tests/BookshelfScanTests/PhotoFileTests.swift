import BookshelfScan
import Foundation
import Testing

/// What a photo's header says, without decoding it.
@Suite(.timeLimit(.minutes(1)))
struct PhotoFileTests {
    @Test(arguments: 1...8)
    func aJPEGsSizeAndEXIFOrientationAreRead(orientation: Int) throws {
        let photo = try PhotoFile.inspect(PhotoBytes.jpeg(width: 4032, height: 3024, orientation: orientation), name: "shelf.jpg")
        #expect(photo.format == .jpeg)
        #expect(photo.width == 4032 && photo.height == 3024)
        #expect(photo.orientation == orientation)
        // 5…8 turn the picture a quarter: a landscape file shows a portrait shelf.
        #expect(photo.uprightSize.width == (orientation >= 5 ? 3024 : 4032))
    }

    @Test func bigEndianEXIFAndNoEXIFAtAll() throws {
        #expect(try PhotoFile.inspect(PhotoBytes.jpeg(width: 10, height: 20, orientation: 8, bigEndianExif: true), name: "a").orientation == 8)
        #expect(try PhotoFile.inspect(PhotoBytes.jpeg(width: 10, height: 20), name: "a").orientation == 1)
    }

    @Test func pngAndWebPSizesAndAWebPsEXIF() throws {
        let png = try PhotoFile.inspect(PhotoBytes.png(width: 1200, height: 800), name: "shelf.png")
        #expect(png.format == .png && png.width == 1200 && png.height == 800 && png.orientation == 1)
        let lossless = try PhotoFile.inspect(PhotoBytes.webpLossless(width: 640, height: 480), name: "shelf.webp")
        #expect(lossless.format == .webp && lossless.width == 640 && lossless.height == 480)
        let extended = try PhotoFile.inspect(PhotoBytes.webpExtended(width: 3000, height: 2000, orientation: 6), name: "shelf.webp")
        #expect(extended.width == 3000 && extended.height == 2000 && extended.orientation == 6)
    }

    @Test func whatIsNotAPhotoIsRefusedWithItsName() {
        #expect(throws: PhotoError.notAnImage("notes.txt")) { try PhotoFile.inspect(Array("Shelf one: Dune, Emma".utf8), name: "notes.txt") }
        #expect(throws: PhotoError.notAnImage("empty.jpg")) { try PhotoFile.inspect([], name: "empty.jpg") }
        // A GIF is an image, but not one the vision providers all take.
        #expect(throws: PhotoError.notAnImage("a.gif")) { try PhotoFile.inspect(Array("GIF89a".utf8) + [1, 0, 1, 0], name: "a.gif") }
    }

    @Test func aTruncatedOrLyingHeaderIsRefusedNotTrapped() throws {
        let jpeg = PhotoBytes.jpeg(width: 100, height: 100)
        for cut in [3, 6, 20, 30] {
            #expect(throws: PhotoError.self) { try PhotoFile.inspect(Array(jpeg.prefix(cut)), name: "cut.jpg") }
        }
        // A segment length running past the end of the file.
        var lying = Array(jpeg.prefix(4)) + [0xFF, 0xFF]
        lying += [UInt8](repeating: 0, count: 8)
        #expect(throws: PhotoError.self) { try PhotoFile.inspect(lying, name: "lying.jpg") }
        #expect(throws: PhotoError.self) { try PhotoFile.inspect(Array(PhotoBytes.png(width: 1, height: 1).prefix(20)), name: "cut.png") }
        #expect(throws: PhotoError.self) { try PhotoFile.inspect(Array(PhotoBytes.webpLossless(width: 2, height: 2).prefix(18)), name: "cut.webp") }
        // A zero-sized frame.
        #expect(throws: PhotoError.self) { try PhotoFile.inspect(PhotoBytes.jpeg(width: 0, height: 10), name: "zero.jpg") }
    }

    @Test func aDecompressionBombIsRefusedBeforeAnyDecoding() {
        #expect(throws: PhotoError.tooManyPixels("bomb.png", width: 65_535, height: 65_535)) {
            try PhotoFile.inspect(PhotoBytes.png(width: 65_535, height: 65_535), name: "bomb.png")
        }
        #expect(throws: PhotoError.tooManyPixels("wide.jpg", width: 20_001, height: 10)) {
            try PhotoFile.inspect(PhotoBytes.jpeg(width: 20_001, height: 10), name: "wide.jpg")
        }
        // An EXIF block claiming a huge directory is read no further than the block.
        var exif = PhotoBytes.jpeg(width: 10, height: 10, orientation: 6)
        if let at = exif.firstIndex(of: 0x12) { exif[at] = 0x00 }  // the tag no longer the orientation's
        #expect((try? PhotoFile.inspect(exif, name: "odd.jpg"))?.orientation == 1)
    }
}
