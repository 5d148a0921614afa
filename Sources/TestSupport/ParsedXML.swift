import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// An XML element parsed back with `XMLParser`, for checking rendered XML and SVG.
public final class ParsedXML {
    public let name: String
    public let attributes: [String: String]
    public var children: [ParsedXML] = []
    public var text = ""

    init(name: String, attributes: [String: String]) {
        self.name = name
        self.attributes = attributes
    }

    /// Direct children named `name`.
    public func children(_ name: String) -> [ParsedXML] {
        children.filter { $0.name == name }
    }

    /// Every descendant named `name`, in document order.
    public func descendants(_ name: String) -> [ParsedXML] {
        children.flatMap { ($0.name == name ? [$0] : []) + $0.descendants(name) }
    }

    /// Parses `data`; `nil` when it is not well-formed XML.
    public static func parse(_ data: Data) -> ParsedXML? {
        let builder = Builder()
        let parser = XMLParser(data: data)
        parser.delegate = builder
        guard parser.parse() else { return nil }
        return builder.root
    }

    private final class Builder: NSObject, XMLParserDelegate {
        var root: ParsedXML?
        var stack: [ParsedXML] = []

        func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String] = [:]) {
            let element = ParsedXML(name: elementName, attributes: attributes)
            stack.last?.children.append(element)
            if root == nil { root = element }
            stack.append(element)
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
            stack.removeLast()
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            stack.last?.text += string
        }
    }
}
