// The parameters of POST /register.
import { z } from 'zod';
import { p, type Args } from '../http/params.js';

const narrowTerm = z.union([
  z.tuple([z.string(), z.union([z.string(), z.number()])]),
  z.object({ operator: z.string(), operand: z.union([z.string(), z.number()]), negated: z.boolean().optional() }),
]);


export const registerParams = {
  apply_markdown: p.bool().default(false),
  // Default true for users, false for spectators (who may not ask for it): see withDefaults.
  client_gravatar: p.bool().optional(),
  slim_presence: p.bool().default(false),
  presence_last_update_id: p.int().optional(),
  presence_history_limit_days: p.int().optional(),
  all_public_streams: p.bool().default(false),
  // A boolean at our feature level ("partial" came at 412).
  include_subscribers: p.bool().default(false),
  include_streams: p.bool().default(true),
  client_capabilities: p.json(z.record(z.string(), z.boolean())).default({}),
  event_types: p.json(z.array(z.string())).optional(),
  fetch_event_types: p.json(z.array(z.string())).optional(),
  narrow: p.json(z.array(narrowTerm)).default([]),
  queue_lifespan_secs: p.int().default(0),
};

type ParsedRegisterArgs = Args<typeof registerParams>;
export type RegisterArgs = Omit<ParsedRegisterArgs, 'client_gravatar'> & { client_gravatar: boolean };

/** A signed-in client's register arguments, with the defaults that depend on who asks. */
export function withDefaults(args: ParsedRegisterArgs): RegisterArgs {
  return { ...args, client_gravatar: args.client_gravatar ?? true };
}

/** The parsed arguments before those defaults (what the spectator path checks). */
export type RawRegisterArgs = ParsedRegisterArgs;
