// Components re-render when the store changes (see store.ts). A change made between a
// render and the subscription (effects run after paint) is caught by the version check.
import { useEffect, useReducer } from 'preact/hooks';
import { subscribe, version } from './store';

export function useStore(): void {
  const [, force] = useReducer((n: number) => n + 1, 0);
  const seen = version();
  useEffect(() => {
    const off = subscribe(() => force(1));
    if (version() !== seen) force(1);
    return off;
  }, []);
}
