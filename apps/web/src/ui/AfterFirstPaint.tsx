// Draws its children one frame after it first appears: a chart beside the numbers a person
// came for waits a frame (in a box that already has its size), so those numbers are painted
// without waiting for every chart around them to be laid out.
import { type ReactNode, useEffect, useState } from 'react';

export function AfterFirstPaint({ children }: { children: ReactNode }) {
  const [painted, setPainted] = useState(false);
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    // After the next frame is painted: a task queued from inside requestAnimationFrame.
    const frame = requestAnimationFrame(() => {
      timer = setTimeout(() => setPainted(true), 0);
    });
    return () => {
      cancelAnimationFrame(frame);
      if (timer !== undefined) clearTimeout(timer);
    };
  }, []);
  return painted ? children : null;
}
