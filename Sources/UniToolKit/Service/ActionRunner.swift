import Foundation
import LibXML

/// An action of a recipe (`actions:`, such as renewing a loan) on the portal: the page its form
/// is on read, the portal's "nothing to do" or refusal said, the form filled and sent (the point
/// of no return), the portal's confirmation page answered if it shows one, and the result read.
/// Over the connection's pages, once the terms are accepted; a page that no longer matches the
/// recipe is saved as a drift report (`PortalConnection.drifted`).
struct ActionRunner: ConnectionPart {
    let connection: PortalConnection

    /// Fills and submits an action's form, such as renewing a loan, and reads the result page.
    /// A refusal by the portal is an `actionRefused` error carrying the portal's own words.
    ///
    /// `listed`: the preview the person said yes to. The page the form is on is read again here,
    /// so its preview is compared first: a list that changed meanwhile (a loan renewed elsewhere)
    /// sends nothing (`declined`), since the yes was for the other list.
    func perform(
        _ action: ActionSpec, of recipe: DataRecipe, argument: String, parameters: [String: String] = [:],
        listed: RecordSet? = nil, today: String = RecordExtractor.localToday()
    ) async throws -> RecordSet {
        try await connection.ensureTermsAccepted()
        return try await HTTPSession.$commandHeaders.withValue(recipe.headers) {
            try await self.performAccepted(action, of: recipe, argument: argument, parameters: parameters, listed: listed, today: today)
        }
    }

    /// What `action` would change, read off the page its form is on and sent nowhere: one record
    /// per row of its `preview:`, with the recipe's own fields (`RecordExtractor`, so a computed
    /// field such as `overdue` is computed against `today`), shaped as the preview says. Empty when
    /// the portal says there is nothing to do or no row matches. The action's refusal before any
    /// form (`refused_when`) is the same error `perform` gives.
    func preview(
        _ action: ActionSpec, of recipe: DataRecipe, argument: String, parameters: [String: String] = [:],
        today: String = RecordExtractor.localToday()
    ) async throws -> RecordSet {
        guard let preview = action.preview, let source = recipe.sources.first else {
            throw UniToolError(.internal, localized("action '\(action.name)' of \(recipe.file) has no preview"))
        }
        try await connection.ensureTermsAccepted()
        return try await HTTPSession.$commandHeaders.withValue(recipe.headers) {
            let values = action.values(argument: argument, parameters: parameters)
            let page = try await connection.loadPage(
                try connection.address(action.fetch.render(values, encode: Template.urlEncode), of: recipe), as: .action,
                recipe: recipe.file)
            let document = try page.document(charsetOverride: portal.charsetOverride(for: page.url))
            let empty = preview.shaped(RecordSet(columns: source.fields.map(\.name), records: []), today: today)
            if let nothingWhen = action.nothingWhen, try document.evaluate(nothingWhen).booleanValue { return empty }
            if let message = try self.refusal(action, in: document, values: values) {
                throw Self.refused(action, argument: argument, message)
            }
            return try self.previewRecords(preview, of: recipe, source: source, in: document, today: today)
        }
    }

    /// The rows of `preview` on `document`, read with `source`'s fields and shaped.
    func previewRecords(
        _ preview: ActionSpec.Preview, of recipe: DataRecipe, source: DataRecipe.Source, in document: Document, today: String
    ) throws -> RecordSet {
        guard try !document.select(preview.rows).isEmpty else {
            return preview.shaped(RecordSet(columns: source.fields.map(\.name), records: []), today: today)
        }
        var rowsSource = source
        rowsSource.rows = preview.rows
        rowsSource.emptyWhen = nil
        rowsSource.next = nil
        rowsSource.maxPages = 1
        var rowsRecipe = recipe
        rowsRecipe.sources = [rowsSource]
        let records = try RecordExtractor(recipe: rowsRecipe, source: rowsSource, today: today, portal: portal).extract(from: document)
        return preview.shaped(records, today: today)
    }

    /// `perform`, once the terms are accepted, with the recipe's headers set.
    private func performAccepted(
        _ action: ActionSpec, of recipe: DataRecipe, argument: String, parameters: [String: String], listed: RecordSet?,
        today: String
    ) async throws -> RecordSet {
        let values = action.values(argument: argument, parameters: parameters)
        let page = try await connection.loadPage(
            try connection.address(action.fetch.render(values, encode: Template.urlEncode), of: recipe), as: .action, recipe: recipe.file)
        let document = try page.document(charsetOverride: portal.charsetOverride(for: page.url))
        // "Nothing to do" is the portal's answer, not a page that changed: said, and done.
        if let nothingWhen = action.nothingWhen, case let found = try document.evaluate(nothingWhen), found.booleanValue {
            let message: String
            if case .nodes(let nodes) = found, let first = nodes.first {
                message = connection.session.scrubber.scrubMessage(first.text.collapsingWhitespace())
            } else {
                message = "the portal says there is nothing to \(action.name)"
            }
            return RecordSet(
                columns: ["result", "message"],
                records: [Record(fields: [("result", .string("nothing to do")), ("message", .string(message))])])
        }
        if let message = try refusal(action, in: document, values: values) {
            throw Self.refused(action, argument: argument, message)
        }
        if let listed, let preview = action.preview, let source = recipe.sources.first {
            let now = try previewRecords(preview, of: recipe, source: source, in: document, today: today)
            guard now == listed else {
                throw UniToolError(
                    .declined,
                    localized(
                        "'\(recipe.command) \(action.name)': the portal's list changed after it was shown (\(listed.records.count) then, \(now.records.count) now); nothing was sent"
                    ),
                    hint: localized("run it again to see the list as it is now"))
            }
        }
        let formXPath = try Template(action.form).render(values, encode: Template.xpathLiteral)
        guard let formNode = try document.select(formXPath).first else {
            let error = UniToolError(
                .layoutChanged,
                localized(
                    "recipe \(recipe.file): action '\(action.name)': no form matching \"\(formXPath)\" on \(page.url.redactedForLog)"),
                hint: localized("check the \(action.argument) (\(argument)); if it is right, the portal's page has changed"))
            throw connection.drifted(error, on: document, recipe: recipe)
        }
        let form = try HTMLForm(formNode, pageURL: page.url)
        var fill = try action.fill.map { (name: $0.name, value: try $0.value.render(values)) }
        for (name, xpath) in action.fillFromPage {
            let expression = try Template(xpath).render(values, encode: Template.xpathLiteral)
            guard let value = try RecipeRunner(connection: connection).values(of: expression, on: document).first else {
                let error = UniToolError(
                    .layoutChanged,
                    localized(
                        "recipe \(recipe.file): action '\(action.name)': fill_from_page '\(name)' found nothing (XPath \"\(expression)\") on \(page.url.redactedForLog)"
                    ),
                    hint: action.takesArgument
                        ? localized("check the \(action.argument) (\(argument)); if it is right, the portal's page has changed")
                        : localized("the portal's page has changed"))
                throw connection.drifted(error, on: document, recipe: recipe)
            }
            fill.append((name: name, value: value))
        }
        let button = try action.submit.flatMap { try formNode.select($0).first }
        if action.submit != nil, button == nil {
            throw UniToolError(
                .layoutChanged,
                localized("recipe \(recipe.file): action '\(action.name)': no button matching \"\(action.submit!)\" in the form"))
        }
        let submission = try form.submission(values: fill, clicking: button)
        if let refusal = connection.originPolicy.refusal(.action, to: submission.url, recipe: recipe.file) {
            throw refusal.adding(note: localized("the form of '\(action.name)' on \(page.url.redactedForLog) points there"))
        }
        connection.logger.debug("action '\(action.name)': \(submission)")
        // The point of no return: a cancel before it sends nothing; once the form is on its way,
        // the portal may act on it, so its answer is read and reported whatever the caller does.
        let mayGoTo = connection.bodyMayGoTo(.action, recipe: recipe.file)
        var result = try await PointOfNoReturn.cross { try await connection.session.submit(submission, bodyMayGoTo: mayGoTo) }
        var resultDocument = try result.document(charsetOverride: portal.charsetOverride(for: result.url))
        // The portal's answer read as `ActionAnswer` says, page by page: its own "is this right?"
        // page, unless it did it at once, gets its form (which carries what it received) sent
        // as it is; a refusal is said in the portal's words, and an answer that is neither
        // success nor refusal is a page that changed.
        var confirmed = false
        answering: while true {
            let document = resultDocument
            let answer = try ActionAnswer.reading(
                refusal: try refusal(action, in: document, values: values), awaitingConfirmation: action.confirmPage != nil && !confirmed,
                succeeded: { try document.evaluate(action.successWhen).booleanValue })
            switch answer {
            case .refused(let message):
                throw Self.refused(action, argument: argument, message)
            case .done:
                break answering
            case .unclear:
                let error = UniToolError(
                    .layoutChanged,
                    localized(
                        "recipe \(recipe.file): action '\(action.name)': the result page at \(result.url.redactedForLog) matches neither success_when nor refused_when, so unitool cannot tell whether it worked"
                    ),
                    hint: localized("look at the portal in a browser before trying again"))
                throw connection.drifted(error, on: resultDocument, recipe: recipe)
            case .confirm:
                guard let confirmPage = action.confirmPage, let confirmNode = try resultDocument.select(confirmPage.form).first else {
                    let confirmForm = action.confirmPage?.form ?? ""
                    let error = UniToolError(
                        .layoutChanged,
                        localized(
                            "recipe \(recipe.file): action '\(action.name)': the page after the form at \(result.url.redactedForLog) has no confirmation form matching \"\(confirmForm)\", and does not say it is done"
                        ),
                        hint: localized("unitool cannot tell whether it was received: look at the portal in a browser before trying again"))
                    throw connection.drifted(error, on: resultDocument, recipe: recipe)
                }
                let confirmButton = try confirmPage.submit.flatMap { try confirmNode.select($0).first }
                if confirmPage.submit != nil, confirmButton == nil {
                    throw UniToolError(
                        .layoutChanged,
                        localized(
                            "recipe \(recipe.file): action '\(action.name)': no button matching \"\(confirmPage.submit!)\" in the confirmation form"
                        ))
                }
                let confirmation = try HTMLForm(confirmNode, pageURL: result.url).submission(values: [], clicking: confirmButton)
                if let refusal = connection.originPolicy.refusal(.action, to: confirmation.url, recipe: recipe.file) {
                    throw refusal.adding(
                        note: localized("the confirmation form of '\(action.name)' on \(result.url.redactedForLog) points there"))
                }
                connection.logger.debug("action '\(action.name)', confirmation: \(confirmation)")
                // The portal only showed what it received: a cancel that came meanwhile is still in
                // time (`cross` obeys it), and the confirmation is the action's real point of no return.
                result = try await PointOfNoReturn.cross { try await connection.session.submit(confirmation, bodyMayGoTo: mayGoTo) }
                resultDocument = try result.document(charsetOverride: portal.charsetOverride(for: result.url))
                confirmed = true
            }
        }
        // Several rows changed (the loans just renewed): one record each, which says which.
        if let resultRows = action.resultRows, !action.fields.isEmpty {
            let rowsRecipe = DataRecipe(
                command: "\(recipe.command) \(action.name)", summary: action.summary, options: [],
                sources: [
                    .init(
                        fetch: action.fetch, parser: .html, namespaces: [:], rows: resultRows, next: nil, maxPages: 1,
                        fields: action.fields)
                ],
                actions: [], file: recipe.file, portal: recipe.portal)
            guard try !resultDocument.select(resultRows).isEmpty else {
                return RecordSet(columns: action.fields.map(\.name), records: [])
            }
            return try RecordExtractor(recipe: rowsRecipe, portal: portal).extract(from: resultDocument)
        }
        var fields: [(name: String, value: FieldValue)] = action.takesArgument ? [(action.argument, .string(argument))] : []
        if !action.fields.isEmpty {
            let actionRecipe = DataRecipe(
                command: "\(recipe.command) \(action.name)", summary: action.summary, options: [],
                sources: [
                    .init(fetch: action.fetch, parser: .html, namespaces: [:], rows: "/*", next: nil, maxPages: 1, fields: action.fields)
                ],
                actions: [], file: recipe.file, portal: recipe.portal)
            let extracted = try RecordExtractor(recipe: actionRecipe, portal: portal).extract(from: resultDocument)
            fields += extracted.records.first?.fields.filter { !action.takesArgument || $0.name != action.argument } ?? []
        }
        return RecordSet(columns: fields.map(\.name), records: [Record(fields: fields)])
    }

    /// The error for an action the portal refused, with its reason (`refusal`).
    static func refused(_ action: ActionSpec, argument: String, _ message: String) -> UniToolError {
        let what = argument.isEmpty ? action.name : "\(action.name) \(argument)"
        return UniToolError(
            .actionRefused, localized("the portal refused to \(what): \(message)"),
            hint: localized("the portal's own rules decide this; see its page for details"))
    }

    /// The portal's reason for refusing an action, as the error quotes it: scrubbed of every
    /// secret the session knows and of SAML messages, since a portal's text may repeat them.
    func refusal(_ action: ActionSpec, in document: Document, values: [String: String] = [:]) throws -> String? {
        try unscrubbedRefusal(action, in: document, values: values).map { connection.session.scrubber.scrubMessage($0) }
    }

    /// `refused_when` may name the argument (`{{barcode}}`, as an XPath string): the portal may
    /// say "not renewable" in the row of that item before any form is sent.
    func unscrubbedRefusal(_ action: ActionSpec, in document: Document, values: [String: String] = [:]) throws -> String? {
        guard let refusedWhen = action.refusedWhen else { return nil }
        switch try document.evaluate(try Template(refusedWhen).render(values, encode: Template.xpathLiteral)) {
        case .nodes(let nodes): return nodes.first.map { $0.text.collapsingWhitespace() }
        case .boolean(let flag): return flag ? localized("(no reason given)") : nil
        case let value:
            let text = value.stringValue.collapsingWhitespace()
            return text.isEmpty ? nil : text
        }
    }
}

/// What the portal's answer to an action's form says, and so what comes next: the decision of
/// `ActionRunner`'s form → confirmation page → result steps, pure.
enum ActionAnswer: Equatable {
    /// The portal refused, in these words (`refused_when`).
    case refused(String)
    /// The portal shows what it received and asks to confirm it (`confirm_page`): send its form.
    case confirm
    /// The portal says it is done (`success_when`).
    case done
    /// Neither success nor refusal: the page changed, and nobody can tell whether it worked.
    case unclear

    /// The answer of a page: a refusal first, then success (asked only when there is no
    /// refusal); a page that is neither is the confirmation page while one is still awaited, and
    /// unclear after.
    static func reading(refusal: String?, awaitingConfirmation: Bool, succeeded: () throws -> Bool) rethrows -> ActionAnswer {
        if let refusal { return .refused(refusal) }
        if try succeeded() { return .done }
        return awaitingConfirmation ? .confirm : .unclear
    }
}
