// The one-process mode's router: a function call into the worker's request handler.
import type { AnswerSink, ApiRequest, HandlerOutcome, RequestHandler, Router } from './contract.js';
import { errorResponse } from './envelope.js';
import { ApiError } from '../model/errors.js';

export class InProcessRouter implements Router {
  constructor(private readonly handler: RequestHandler) {}

  dispatch(req: ApiRequest, sink: AnswerSink): void {
    let handled: Promise<HandlerOutcome>;
    try {
      handled = this.handler.handle(req);
    } catch (err) {
      return sink.failed(err);
    }
    handled.then(
      (outcome) =>
        sink.answered(
          outcome.kind === 'response'
            ? outcome.res
            : // A single process holds every realm; this answers only a realm lost mid-shutdown.
              errorResponse(new ApiError('SERVER_NOT_READY', 'Server is not ready; try again', 503, {}, { 'Retry-After': '1' })),
        ),
      (err: unknown) => sink.failed(err),
    );
  }

  cancel(requestId: string, subdomain: string): void {
    this.handler.cancel(requestId, subdomain);
  }

  async close(): Promise<void> {}
}
