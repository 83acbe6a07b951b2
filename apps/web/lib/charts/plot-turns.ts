// When a page's charts create their plots. A run page holds seven or more charts and 1280×900 shows two of them:
// creating, feeding and painting all seven before the first frame was most of a long run's first paint (issue 28).
// A chart on screen is created as soon as the browser has laid it out; the others one per idle moment after that
// (so the page answers input between them, and none is missing when scrolled to or read by a test a moment later),
// or at once when scrolled into view before their turn.

/** What the queue needs from the browser, handed in so the order can be tested without one. */
export interface PlotTurnsHost {
  /** Calls `seen(onScreen, width)` on every change of whether `element` is on screen; answers a stop. */
  observe: (element: Element, seen: (onScreen: boolean, width: number) => void) => () => void;
  /** Runs `run` once when the page is next idle. */
  idle: (run: () => void) => void;
}

export interface PlotTurns {
  /**
   * Calls `create(width)` once for `element`, with its width as last seen: when it is first seen on screen, or on
   * its idle turn after the browser first said it is not (`waiting` is told then). Answers a cancel, for an unmount.
   */
  add: (element: Element, create: (width: number) => void, waiting?: () => void) => () => void;
}

export function plotTurns(host: PlotTurnsHost): PlotTurns {
  const queue: (() => void)[] = [];
  let scheduled = false;
  const turn = () => {
    scheduled = false;
    queue.shift()?.();
    if (queue.length > 0) schedule();
  };
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    host.idle(turn);
  };
  const leave = (start: () => void) => {
    const index = queue.indexOf(start);
    if (index >= 0) queue.splice(index, 1);
  };
  return {
    add(element, create, waiting) {
      let done = false;
      let width = 0;
      const start = () => {
        if (done) return;
        done = true;
        stop();
        leave(start);
        create(width);
      };
      let stop = () => {};
      stop = host.observe(element, (onScreen, seenWidth) => {
        width = seenWidth;
        if (onScreen) start();
        else if (!done && !queue.includes(start)) {
          // Off screen at first sight: its turn comes after the charts on screen, one chart per idle moment.
          queue.push(start);
          schedule();
          waiting?.();
        }
      });
      // Seen on screen while being observed (a host that answers at once): the observer is not needed any more.
      if (done) stop();
      return () => {
        done = true;
        stop();
        leave(start);
      };
    },
  };
}

/** The browser's: an IntersectionObserver per chart and requestIdleCallback (a short timer where it is missing). */
function browserHost(): PlotTurnsHost {
  return {
    observe(element, seen) {
      const observer = new IntersectionObserver((entries) => {
        const entry = entries[entries.length - 1];
        if (entry) seen(entry.isIntersecting, entry.boundingClientRect.width);
      });
      observer.observe(element);
      return () => observer.disconnect();
    },
    idle(run) {
      if (typeof window.requestIdleCallback === "function") window.requestIdleCallback(run, { timeout: 500 });
      else setTimeout(run, 16);
    },
  };
}

let pageTurns: PlotTurns | null = null;

/** The page's one queue: every chart of it waits in the same line. */
export function pagePlotTurns(): PlotTurns {
  pageTurns ??= plotTurns(browserHost());
  return pageTurns;
}
