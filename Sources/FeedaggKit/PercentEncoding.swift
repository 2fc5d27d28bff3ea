/// Percent-encoding of text for URLs and URIs built from remote or user text.
public enum PercentEncoding {
    /// `text` as UTF-8 with every byte but RFC 3986's unreserved characters (`A–Z a–z 0–9 - . _ ~`)
    /// and the ASCII bytes of `extra` written as `%XX` (upper-case hex).
    public static func encoded(_ text: String, alsoKeeping extra: Set<UInt8> = []) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            case _ where extra.contains(byte) && byte < 0x80:
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += "%" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
            }
        }
        return out
    }
}
