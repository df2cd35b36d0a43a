import Testing

@testable import UniToolKit

/// The decision of an action's steps (`ActionAnswer`): what the portal's answer to a form says.
@Suite("ActionAnswer: refused, confirm, done or unclear")
struct ActionAnswerTests {
    @Test("a refusal is said first, whatever else the page says, before and after a confirmation")
    func refusalFirst() {
        for awaiting in [true, false] {
            for succeeded in [true, false] {
                #expect(
                    ActionAnswer.reading(refusal: "not renewable", awaitingConfirmation: awaiting, succeeded: { succeeded })
                        == .refused("not renewable"))
            }
        }
    }

    @Test("success ends it, also when the portal did it at once instead of showing its confirmation page")
    func done() {
        #expect(ActionAnswer.reading(refusal: nil, awaitingConfirmation: true, succeeded: { true }) == .done)
        #expect(ActionAnswer.reading(refusal: nil, awaitingConfirmation: false, succeeded: { true }) == .done)
    }

    @Test("neither success nor refusal is the confirmation page while one is awaited, and unclear after it")
    func confirmThenUnclear() {
        #expect(ActionAnswer.reading(refusal: nil, awaitingConfirmation: true, succeeded: { false }) == .confirm)
        #expect(ActionAnswer.reading(refusal: nil, awaitingConfirmation: false, succeeded: { false }) == .unclear)
    }

    @Test("success is not asked when the page refused: a refusal wins even where success_when cannot be read")
    func successNotAskedAfterRefusal() throws {
        struct Unreadable: Error {}
        let answer = try ActionAnswer.reading(refusal: "not renewable", awaitingConfirmation: false, succeeded: { throw Unreadable() })
        #expect(answer == .refused("not renewable"))
    }
}
