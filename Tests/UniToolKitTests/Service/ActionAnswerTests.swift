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
                    ActionAnswer.reading(succeeded: succeeded, refusal: "not renewable", awaitingConfirmation: awaiting)
                        == .refused("not renewable"))
            }
        }
    }

    @Test("success ends it, also when the portal did it at once instead of showing its confirmation page")
    func done() {
        #expect(ActionAnswer.reading(succeeded: true, refusal: nil, awaitingConfirmation: true) == .done)
        #expect(ActionAnswer.reading(succeeded: true, refusal: nil, awaitingConfirmation: false) == .done)
    }

    @Test("neither success nor refusal is the confirmation page while one is awaited, and unclear after it")
    func confirmThenUnclear() {
        #expect(ActionAnswer.reading(succeeded: false, refusal: nil, awaitingConfirmation: true) == .confirm)
        #expect(ActionAnswer.reading(succeeded: false, refusal: nil, awaitingConfirmation: false) == .unclear)
    }
}
