// Components re-render when the store changes (see store.ts).
import { useEffect, useReducer } from 'preact/hooks';
import { subscribe } from './store';

export function useStore(): void {
  const [, force] = useReducer((n: number) => n + 1, 0);
  useEffect(() => subscribe(() => force(1)), []);
}
