// A modal panel (settings, organization, shortcuts, drafts): Escape or "Close" ends it.
import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { store, changed } from '../store';

export function closeOverlay(): void {
  store.overlay = null;
  changed();
}

export function Dialog({ title, children }: { title: string; children: ComponentChildren }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const before = document.activeElement as HTMLElement | null;
    box.current?.querySelector<HTMLElement>('input, select, button, textarea')?.focus();
    return () => before?.focus?.();
  }, []);
  const id = `dialog-${title.replace(/\W+/g, '-').toLowerCase()}`;
  return (
    <div class="backdrop" onClick={(e) => e.target === e.currentTarget && closeOverlay()}>
      <div class="dialog" role="dialog" aria-modal="true" aria-labelledby={id} ref={box} onKeyDown={(e) => e.key === 'Escape' && (e.stopPropagation(), closeOverlay())}>
        <div class="dialog-head">
          <h2 id={id}>{title}</h2>
          <button type="button" onClick={closeOverlay}>
            Close
          </button>
        </div>
        {children}
      </div>
    </div>
  );
}
