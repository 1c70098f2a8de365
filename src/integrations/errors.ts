// The errors of incoming webhooks, with Zulip's codes, statuses and extra fields.
import { ApiError } from '../model/errors.js';

/**
 * An event the tool sends that the integration does not turn into a message. HTTP 200 and
 * `result: "success"` (as Zulip answers), so that the tool does not retry or disable the hook.
 */
export const unsupportedEvent = (webhookName: string, eventType: string) =>
  new ApiError(
    'UNSUPPORTED_WEBHOOK_EVENT_TYPE',
    `The '${eventType}' event isn't currently supported by the ${webhookName} webhook; ignoring`,
    200,
    { webhook_name: webhookName, event_type: eventType },
  );

/** The header that names the event is missing: the URL of another integration, most likely. */
export const missingEventHeader = (header: string) =>
  new ApiError('MISSING_HTTP_EVENT_HEADER', `Missing the HTTP event header '${header}'`, 400, { header });

/** A request the integration cannot recognize as coming from its tool. */
export const anomalousPayload = (webhookName: string) =>
  new ApiError('ANOMALOUS_WEBHOOK_PAYLOAD', `Unable to parse request: Did ${webhookName} generate this event?`, 400, {
    webhook_name: webhookName,
  });

export const malformedJson = () => new ApiError('INVALID_JSON', 'Malformed JSON', 400);

/** A payload of the wrong shape (Zulip answers these with a 500; the message says what is wrong). */
export const badPayload = (msg: string) => new ApiError('BAD_REQUEST', msg, 400);
