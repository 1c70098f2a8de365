// The one-process mode's router: a function call into the worker's request handler.
import type { ApiRequest, ApiResponse, RequestHandler, Router } from './contract.js';
import { errorResponse } from './envelope.js';
import { ApiError } from '../model/errors.js';

export class InProcessRouter implements Router {
  constructor(private readonly handler: RequestHandler) {}

  async dispatch(req: ApiRequest): Promise<ApiResponse> {
    const outcome = await this.handler.handle(req);
    if (outcome.kind === 'response') return outcome.res;
    // A single process holds every realm; this answers only a realm lost mid-shutdown.
    return errorResponse(new ApiError('SERVER_NOT_READY', 'Server is not ready; try again', 503, {}, { 'Retry-After': '1' }));
  }

  cancel(requestId: string, subdomain: string): void {
    this.handler.cancel(requestId, subdomain);
  }

  async close(): Promise<void> {}
}
