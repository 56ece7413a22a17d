import Foundation
import PlayerCore
import PlayerLibrary
import Testing

/// Which picture of a track's folder is its album's cover.
@Suite struct CoverArtTests {
  @Test(arguments: [
    (["01 a.flac", "cover.jpg", "folder.jpg"], "cover.jpg"),
    (["Folder.PNG", "back.jpg", "scan 1.jpg"], "Folder.PNG"),
    (["front.webp", "AlbumArtSmall.jpg"], "front.webp"),
    (["AlbumArt_{GUID}_Large.jpg", "AlbumArtSmall.jpg"], "AlbumArtSmall.jpg"),
    (["Album - Back.jpg", "Album - Cover.jpg"], "Album - Cover.jpg"),
    (["Front Cover 2.png", "Front Cover 10.png"], "Front Cover 2.png"),
    (["only.jpeg", "notes.txt", "01 a.flac"], "only.jpeg"),
  ])
  func thePictureThatSaysItIsTheCoverWins(names: [String], cover: String) {
    #expect(CoverArt.choose(among: names) == cover)
  }

  @Test func noPictureOrSeveralUnnamedOnesIsNoCover() {
    #expect(CoverArt.choose(among: []) == nil)
    #expect(CoverArt.choose(among: ["01 a.flac", "cover.txt", ".jpg", "cover"]) == nil)
    #expect(CoverArt.choose(among: ["scan 1.jpg", "scan 2.jpg"]) == nil, "booklet scans are not the cover")
  }

  @Test func theTracksOwnFolderIsSearchedAndFoldersAreNotPictures() throws {
    let folder = FileManager.default.temporaryDirectory.path + "/splay cover \(getpid()) Ünï"
    let fm = FileManager.default
    try fm.createDirectory(atPath: folder + "/cover.jpg", withIntermediateDirectories: true)
    defer { try? fm.removeItem(atPath: folder) }
    try Data("x".utf8).write(to: URL(fileURLWithPath: folder + "/01 a.flac"))
    #expect(CoverArt.find(forTrackAt: folder + "/01 a.flac") == nil, "a folder named cover.jpg is no picture")
    try Data("x".utf8).write(to: URL(fileURLWithPath: folder + "/Front.png"))
    #expect(CoverArt.find(forTrackAt: folder + "/01 a.flac") == folder + "/Front.png")
    #expect(CoverArt.find(forTrackAt: folder + "/gone/01 a.flac") == nil, "an unreadable folder has none")
  }
}
