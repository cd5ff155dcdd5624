/**
 * A page's own `window.refkit`, set before the widget's script runs (imported ahead of it by
 * refkit-global.test.ts). Not a test file.
 */
export const pagesOwn = () => 'the page’s own';

(window as unknown as { refkit: unknown }).refkit = { getReferralCode: pagesOwn, somethingElse: 42 };
