import Foundation
import TestSupport
import Testing

@testable import GeofenceRuntime

/// OwnTracks payload encryption: the apps' secretbox with a zero-padded secret.
struct OwnTracksKeysTests {
    private let location = Array(#"{"_type":"location","lat":51.5,"lon":-0.12,"tst":1700000000}"#.utf8)

    /// A payload sealed with the device's secret opens to the JSON the app encrypted; the
    /// device's own key wins over the key for every device.
    @Test func aPayloadSealedWithTheSecretOpens() throws {
        let keys = try OwnTracksKeys(
            text: "# keys\nfallback secret\njane/phone=jane's secret\n", source: "keys")
        let sealed = OwnTracksKeys.seal(location, secret: "jane's secret")
        #expect(keys.open(sealed, device: "jane/phone") == .decrypted(location))
        #expect(
            keys.open(OwnTracksKeys.seal(location, secret: "fallback secret"), device: "bob/tablet")
                == .decrypted(location))
        guard case .failed(let reason) = keys.open(sealed, device: "bob/tablet") else {
            Issue.record("a payload sealed with another secret opened")
            return
        }
        #expect(reason.contains("does not open"))
    }

    /// A payload sealed by libsodium outside geofence (the published ciphertext of a known
    /// secret and nonce) opens: the key derivation is the apps' (zero padding), not ours alone.
    @Test func aKnownCiphertextOpens() throws {
        // Made with PyNaCl 1.6.2 (from PyPI, outside this repository): SecretBox(b"s3cr3t".ljust(32, b"\0")).encrypt(b'{"_type":"location"}',
        // nonce=bytes(range(24))), base64.
        let data = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYX/RM4F1LO3qsx83BDKh90b4eYDKsnpNqNrHoBXiT16R+tcxra"
        let keys = try OwnTracksKeys(text: "s3cr3t\n", source: "keys")
        let payload = Array(#"{"_type":"encrypted","data":"\#(data)"}"#.utf8)
        #expect(keys.open(payload, device: nil) == .decrypted(Array(#"{"_type":"location"}"#.utf8)))
    }

    /// Without a key, an encrypted payload is reported as such; a plain one is left alone.
    @Test func withoutAKeyEncryptedPayloadsAreNamed() {
        let keys = OwnTracksKeys()
        #expect(keys.open(OwnTracksKeys.seal(location, secret: "x"), device: "jane/phone") == .noKey)
        #expect(keys.open(location, device: "jane/phone") == .plain)
    }

    /// A secret longer than the apps allow is refused with the line.
    @Test func overlongSecretsAreRefused() {
        #expect(throws: OwnTracksKeyError.self) {
            _ = try OwnTracksKeys(text: String(repeating: "k", count: 33), source: "keys")
        }
    }
}
