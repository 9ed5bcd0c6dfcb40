// Whether an element has come near the viewport, or the page is being printed: a panel below
// the fold asks for its data and its code only then (a comparison's tail causes). Once true it
// stays true, so a panel scrolled past is not dropped.
import { type RefCallback, useCallback, useEffect, useState } from 'react';

export function useInView<T extends Element>(rootMargin = '200px'): [RefCallback<T>, boolean] {
  const [seen, setSeen] = useState(false);
  const [element, setElement] = useState<T | null>(null);
  const ref = useCallback((el: T | null) => setElement(el), []);
  useEffect(() => {
    if (seen || !element) return;
    if (typeof IntersectionObserver === 'undefined') {
      setSeen(true);
      return;
    }
    const observer = new IntersectionObserver(
      (entries) => {
        if (entries.some((e) => e.isIntersecting)) setSeen(true);
      },
      { rootMargin },
    );
    observer.observe(element);
    const print = () => setSeen(true);
    window.addEventListener('beforeprint', print);
    return () => {
      observer.disconnect();
      window.removeEventListener('beforeprint', print);
    };
  }, [element, seen, rootMargin]);
  return [ref, seen];
}
