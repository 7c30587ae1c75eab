import Foundation

extension NodeReader {
    /// The keys of `post: { ... }`.
    static let postKeys = ["url", "body", "headers", "timeout"]

    /// `post: URL` or `post: { url:, body: json|text, headers: {...}, timeout: }`.
    mutating func webhookTarget(_ node: YAMLNode, context: String) -> WebhookTarget? {
        if case .mapping = node {
            guard let members = mapping(node, allowed: NodeReader.postKeys, context: "\(context) post")
            else { return nil }
            guard let url = members["url"] else {
                error(node.mark, "\(context): post needs url:")
                return nil
            }
            return webhookTarget(url: url, options: members, context: context)
        }
        return webhookTarget(url: node, options: nil, context: context)
    }

    mutating func webhookTarget(url node: YAMLNode, options: Members?, context: String)
        -> WebhookTarget?
    {
        guard let url = string(node, field: "post") else { return nil }
        guard let components = URLComponents(string: url),
            ["http", "https"].contains(components.scheme?.lowercased() ?? ""),
            !(components.host ?? "").isEmpty
        else {
            error(node.mark, "\(context): \"\(url)\" is not an http:// or https:// URL")
            return nil
        }
        var target = WebhookTarget(url: url)
        if let body = options?["body"], let text = string(body, field: "body") {
            switch text {
            case "json": target.text = false
            case "text": target.text = true
            default: error(body.mark, "\(context): body: is json or text, not \"\(text)\"")
            }
        }
        if let headers = options?["headers"] {
            if case .mapping(let pairs, _) = headers {
                for pair in pairs {
                    if let value = string(pair.value, field: "header \(pair.key)") {
                        guard !value.contains("\n"), !value.contains("\r"), !pair.key.contains(":") else {
                            error(pair.value.mark, "\(context): header \(pair.key) must be one line")
                            continue
                        }
                        target.headers[pair.key] = value
                    }
                }
            } else {
                error(headers.mark, "\(context): headers: must be a mapping of names to values")
            }
        }
        if let timeout = options?["timeout"], let seconds = duration(timeout, field: "timeout") {
            if seconds > 0 {
                target.timeoutSeconds = seconds
            } else {
                error(timeout.mark, "\(context): timeout: must be more than 0")
            }
        }
        return target
    }
}
