// Narrow terms: the `{operator, operand, negated}` filters clients send, and the legacy pairs.
export type NarrowTerm = { operator: string; operand: string | number; negated: boolean };
export type RawNarrowTerm =
  | [string, string | number]
  | { operator: string; operand: string | number; negated?: boolean };

