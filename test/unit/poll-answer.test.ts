// The benchmark's long-polling subscribers read poll answers from their bytes (bench/lib/pollAnswer.ts).
// On answers written by the server's own serializers, that reading equals the one from the
// parsed JSON; an answer in another shape is parsed whole.
import { describe, expect, it } from 'vitest';
import { FANOUT_MARKERS, SEND_MARKERS, readPollAnswer, readPollAnswerParsed } from '../../bench/lib/pollAnswer.js';
import { bodyBuffer, bodyPayload } from '../../src/http/bodyText.js';
import { successBody } from '../../src/http/envelope.js';
import { fanoutMarkerContent, markerContent } from '../../bench/lib/request-spec.js';

const marker = (phase: string, seq: number) =>
  fanoutMarkerContent(phase).replace('{{t}}', String(1_700_000_000_000 + seq)).replace('{{s}}', String(1_700_000_000_000 + seq)).replace('{{seq}}', String(seq));

const message = (id: number, content: string) => ({
  id, sender_id: 9, content, recipient_id: 3, timestamp: 1_700_000_000, client: 'bench', subject: 'fan-out ✓',
  display_recipient: 'big', type: 'stream', reactions: [{ emoji_name: 'ok', user_id: 4 }], submessages: [], flags: undefined,
});

/** An answer as the server writes it: the envelope, the events, the queue id. */
const answer = (events: Record<string, unknown>[]) => {
  const payload = bodyPayload(successBody({ events, queue_id: 's1-9c5e…' }));
  return typeof payload === 'string' ? Buffer.from(payload) : bodyBuffer(payload);
};

describe('reading a poll answer from its bytes', () => {
  it('finds the last event id and the markers, as the parsed answer does', () => {
    const shared = message(101, `<p>${marker('ph1', 0)}</p>`);
    const events = [
      { type: 'message', message: shared, flags: [], id: 7 },
      { type: 'realm_user', op: 'update', person: { user_id: 4, id: 99, full_name: '"id":5}' }, id: 8 },
      { type: 'message', message: message(102, `ünïcode “quoted” \\ ${marker('ph1', 1)} and "id":3}`), flags: ['mentioned'], id: 9 },
      { type: 'message', message: message(103, 'no marker here'), flags: [], id: 10 },
      { type: 'message', message: message(105, 'fanout-bench ph3 5 6, fanout-bench  7 8 9, fanout-bench ph-4 1 2 3'), flags: [], id: 11 },
      { type: 'message', message: message(104, `<p>${marker('ph2', 12)}</p>`), flags: ['read'], id: 12 },
      { type: 'heartbeat', id: 13 },
    ];
    const body = answer(events);
    const read = readPollAnswer(body, FANOUT_MARKERS);
    expect(read).toEqual(readPollAnswerParsed(body, FANOUT_MARKERS));
    expect(read.lastEventId).toBe(13);
    expect(read.markers.map((m) => [m.phase, m.seq])).toEqual([['ph1', 0], ['ph1', 1], ['ph2', 12]]);
    expect(read.markers[1]).toEqual({ phase: 'ph1', sentAt: 1_700_000_000_001, scheduledAt: 1_700_000_000_001, seq: 1 });
  });

  it('reads answers with one event, a message last, and none', () => {
    for (const events of [
      [{ type: 'heartbeat', id: 0 }],
      [{ type: 'message', message: message(5, marker('p', 3)), flags: [], id: 41 }],
      [],
    ]) {
      const body = answer(events);
      expect(readPollAnswer(body, FANOUT_MARKERS)).toEqual(readPollAnswerParsed(body, FANOUT_MARKERS));
    }
    expect(readPollAnswer(answer([]), FANOUT_MARKERS).lastEventId).toBeNull();
  });

  it('parses an answer in another shape', () => {
    const body = Buffer.from(JSON.stringify({ result: 'success', msg: '', queue_id: 'q', events: [{ id: 3, type: 'message', message: { content: marker('x', 2) } }] }));
    expect(readPollAnswer(body, FANOUT_MARKERS)).toEqual({ lastEventId: 3, markers: [{ phase: 'x', sentAt: 1_700_000_000_002, scheduledAt: 1_700_000_000_002, seq: 2 }] });
    const idFirst = Buffer.from(JSON.stringify({ result: 'success', msg: '', events: [{ id: 6, type: 'heartbeat' }], queue_id: 'q' }));
    expect(readPollAnswer(idFirst, FANOUT_MARKERS)).toEqual({ lastEventId: 6, markers: [] });
  });

  it('reads the send workloads\' markers likewise', () => {
    const send = (phase: string, seq: number) => markerContent(phase).replace('{{t}}', String(1_800_000_000_000 + seq)).replace('{{seq}}', String(seq));
    const events = [
      { type: 'message', message: message(201, `<p>${send('saturated', 4)}</p>`), flags: [], id: 20 },
      { type: 'message', message: message(202, 'bench:half:12 and bench::1:2 and bench:x-y:1:2'), flags: [], id: 21 },
      { type: 'message', message: message(203, `<p>${send('half', 5)}</p>`), flags: ['read'], id: 22 },
      { type: 'message', message: message(204, `<p>${marker('ph1', 7)}</p>`), flags: [], id: 23 },
    ];
    const body = answer(events);
    const read = readPollAnswer(body, SEND_MARKERS);
    expect(read).toEqual(readPollAnswerParsed(body, SEND_MARKERS));
    expect(read).toEqual({
      lastEventId: 23,
      markers: [
        { phase: 'saturated', sentAt: 1_800_000_000_004, seq: 4 },
        { phase: 'half', sentAt: 1_800_000_000_005, seq: 5 },
      ],
    });
    // Neither format reads the other's markers.
    expect(readPollAnswer(body, FANOUT_MARKERS).markers.map((m) => m.seq)).toEqual([7]);
  });
});
