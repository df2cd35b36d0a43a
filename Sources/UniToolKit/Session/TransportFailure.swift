import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import NIOHTTPCompression
import NIOPosix
import NIOSSL

/// What broke on the way to the portal, told by the error's type (NIO's, async-http-client's,
/// NIOSSL's), never by its message: a pure decision with unit tests of its own. It decides the
/// message the user reads and whether a GET is worth trying again.
enum TransportFailure: Sendable, Equatable {
    /// Nobody listens there (ECONNREFUSED): trying again at once changes nothing.
    case refused
    case timedOut
    /// The portal closed the connection before it answered.
    case closedEarly
    /// The answer arrived cut short (a body that ended early, a chunk cut in half).
    case cutShort
    /// The connection broke in another way (reset, a broken pipe, an unclean TLS shutdown).
    case broken
    /// The portal sent more than unitool accepts: headers that overflow, a body that unpacks to
    /// far more than it was. The same portal sends the same again, so it is not retried.
    case tooMuch
    /// The certificate is not trusted, or the TLS handshake failed.
    case untrustedTLS
    /// Anything else: the portal cannot be reached.
    case unreachable

    static func of(_ error: any Error) -> TransportFailure {
        switch error {
        case let parser as HTTPParserError:
            return [.headerOverflow, .invalidHeaderToken].contains(parser) ? .tooMuch : .cutShort
        case is NIOHTTPDecompression.DecompressionError, is NIOHTTPDecompression.ExtraDecompressionError:
            return .tooMuch
        case is NIOSSLError, is BoringSSLError:
            return .untrustedTLS
        case let client as HTTPClientError:
            switch client {
            case .connectTimeout, .readTimeout, .writeTimeout, .deadlineExceeded, .tlsHandshakeTimeout, .getConnectionFromPoolTimeout:
                return .timedOut
            case .remoteConnectionClosed:
                return .closedEarly
            case .bodyLengthMismatch, .uncleanShutdown:
                return .cutShort
            default:
                return .unreachable
            }
        case let io as IOError:
            return io.errnoCode == ECONNREFUSED ? .refused : .broken
        case let connection as NIOConnectionError:
            let causes = connection.connectionErrors.map { of($0.error) }
            if !causes.isEmpty, causes.allSatisfy({ $0 == .refused }) { return .refused }
            return causes.contains(.timedOut) ? .timedOut : .unreachable
        case let channel as ChannelError:
            switch channel {
            case .connectTimeout: return .timedOut
            case .eof, .ioOnClosedChannel, .alreadyClosed, .outputClosed, .inputClosed: return .broken
            default: return .unreachable
            }
        case is CancellationError:
            return .broken
        default:
            return .unreachable
        }
    }

    /// Whether a GET may be sent again: a connection that broke may work the next time;
    /// a refusal, a timeout (already a long wait), too much data or a bad certificate will not.
    var isWorthRetry: Bool {
        switch self {
        case .closedEarly, .cutShort, .broken, .unreachable: return true
        case .refused, .timedOut, .tooMuch, .untrustedTLS: return false
        }
    }
}

/// A transport failure as the session reports it: the user's error, and what decided it.
struct TransportError: Error {
    var failure: TransportFailure
    var error: UniToolError
}
