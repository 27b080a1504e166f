/**
 * A document for react-dom (happy-dom's), and nothing else of a browser: fetch, Request, Response,
 * BroadcastChannel and timers stay Node's own, so that the client talks to the test's real HTTP servers as
 * it does in an app. (Vitest's happy-dom environment would replace fetch with one that applies CORS.)
 */
import { Window } from 'happy-dom';
import { afterAll } from 'vitest';

const window = new Window({ url: 'http://localhost/' });
// react-dom reads navigator.userAgent; happy-dom's has no Web Locks, so the client locks within this realm.
// Node 21+ has a global navigator of its own, a getter: defined over, not assigned.
Object.assign(globalThis, { window, document: window.document, IS_REACT_ACT_ENVIRONMENT: true });
Object.defineProperty(globalThis, 'navigator', { value: window.navigator, configurable: true, writable: true });

afterAll(async () => {
  await window.happyDOM.close();
});
