// zulip-js ships no type declarations; the tests use it untyped.
declare module 'zulip-js';
