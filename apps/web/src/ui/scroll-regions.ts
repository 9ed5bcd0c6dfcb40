// Tables that scroll sideways (a narrow window, many columns): while a wrapper's content is
// wider than it, the wrapper can be focused and scrolled with the keyboard, is announced as a
// region named after its table, and says which side holds more (CSS fades that edge). One
// observer for the whole app, so that no table component has to carry this itself.
const SCROLLERS = '.table-wrap, .chart-data-table';
const FLAG = 'data-scroll-region';

function nameOf(el: HTMLElement): string {
  const labelled =
    el.querySelector('caption')?.textContent ??
    el.querySelector('table')?.getAttribute('aria-label') ??
    el.closest('section, .panel, details')?.querySelector('h1, h2, h3, summary')?.textContent;
  return labelled?.trim()
    ? `Table: ${labelled.trim()} (scrolls sideways)`
    : 'Table (scrolls sideways)';
}

function update(el: HTMLElement): void {
  const overflows = el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1;
  if (overflows) {
    if (!el.hasAttribute(FLAG)) {
      el.setAttribute(FLAG, '');
      el.tabIndex = 0;
      el.setAttribute('role', 'region');
      el.setAttribute('aria-label', nameOf(el));
    }
    const more = [
      el.scrollLeft > 1 ? 'left' : '',
      el.scrollLeft + el.clientWidth < el.scrollWidth - 1 ? 'right' : '',
    ]
      .filter(Boolean)
      .join(' ');
    if (more) el.setAttribute('data-more', more);
    else el.removeAttribute('data-more');
  } else if (el.hasAttribute(FLAG)) {
    el.removeAttribute(FLAG);
    el.removeAttribute('tabindex');
    el.removeAttribute('role');
    el.removeAttribute('aria-label');
    el.removeAttribute('data-more');
  }
}

/** Watches the document for scrolling tables for as long as the page lives. */
export function watchScrollRegions(root: HTMLElement): void {
  const watched = new WeakSet<HTMLElement>();
  const sizes = new ResizeObserver((entries) => {
    for (const e of entries) update(e.target as HTMLElement);
  });
  const onScroll = (event: Event) => {
    const el = event.target;
    if (el instanceof HTMLElement && el.hasAttribute(FLAG)) update(el);
  };
  root.addEventListener('scroll', onScroll, { capture: true, passive: true });
  const scan = () => {
    for (const el of root.querySelectorAll<HTMLElement>(SCROLLERS)) {
      if (watched.has(el)) {
        update(el);
        continue;
      }
      watched.add(el);
      sizes.observe(el);
      const table = el.querySelector('table');
      if (table) sizes.observe(table);
      update(el);
    }
  };
  let pending = false;
  new MutationObserver(() => {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => {
      pending = false;
      scan();
    });
  }).observe(root, { childList: true, subtree: true });
  scan();
}
