/**
 * The CAPTCHA a campaign asks keyless sign-ups to solve (getWidgetSettings' `captcha`): loaded only for
 * such a campaign, so other pages download none of it. It loads the provider's script once per page
 * (Cloudflare Turnstile, hCaptcha or Google reCAPTCHA v2, or the service's CAPTCHA_SCRIPT_URL), renders
 * the challenge explicitly with the campaign's site key, and hands the token the provider's callback
 * gives to the widget, which sends it as `captchaToken`. A token is good for one sign-up: after a refused
 * one the widget resets the challenge for a new token.
 *
 * The challenge is rendered into an element of the page's own DOM, a child of <referral-widget> shown in
 * its `captcha` slot: the providers' scripts look for their containers and frames in the document, not
 * inside a shadow root.
 */
import type { WidgetCaptcha } from '../../api/widget-schemas.js';

type Provider = WidgetCaptcha['provider'];

/** The providers' scripts, each asked for explicit rendering (their `onload` parameter is added when loading). */
export const CAPTCHA_SCRIPTS: Record<Provider, string> = {
  turnstile: 'https://challenges.cloudflare.com/turnstile/v0/api.js?render=explicit',
  hcaptcha: 'https://js.hcaptcha.com/1/api.js?render=explicit',
  recaptcha: 'https://www.google.com/recaptcha/api.js?render=explicit',
};

/** The global each script defines: window.turnstile, window.hcaptcha, window.grecaptcha. */
const GLOBALS: Record<Provider, string> = { turnstile: 'turnstile', hcaptcha: 'hcaptcha', recaptcha: 'grecaptcha' };

/** What the widget uses of each provider's JavaScript API (the three agree on it). */
interface CaptchaApi {
  render(container: HTMLElement, params: Record<string, unknown>): string | number;
  reset(id?: string | number): void;
  remove?(id?: string | number): void;
  ready?(callback: () => void): void;
}

/** How long the script may take to load and call back before the challenge is said not to have loaded. */
export const SCRIPT_TIMEOUT_MS = 20_000;

/** Loading (the script is on its way), shown (waiting to be solved), solved, or error (the script did not load). */
export type ChallengeState = 'loading' | 'shown' | 'solved' | 'error';

const loads = new Map<string, Promise<CaptchaApi>>();
let callbacks = 0;

/** The provider's API, its script loaded once per page; rejects when it does not load (a refused load retries next time). */
export function loadCaptchaApi(captcha: WidgetCaptcha): Promise<CaptchaApi> {
  const address = captcha.scriptUrl || CAPTCHA_SCRIPTS[captcha.provider];
  // By provider too: one CAPTCHA_SCRIPT_URL may stand in for all three.
  const key = `${captcha.provider} ${address}`;
  let load = loads.get(key);
  if (load) return load;
  const w = window as unknown as Record<string, unknown>;
  const present = w[GLOBALS[captcha.provider]] as CaptchaApi | undefined;
  if (present?.render && !captcha.scriptUrl) {
    // The page loaded the provider's script itself: loading it twice would upset it. reCAPTCHA's API is
    // usable once its ready() calls back; the others' once their global has render.
    load = captcha.provider === 'recaptcha' && present.ready ? new Promise((resolve) => present.ready!(() => resolve(present))) : Promise.resolve(present);
  } else {
    load = new Promise<CaptchaApi>((resolve, reject) => {
      const name = `refkitCaptchaLoaded${++callbacks}`;
      const script = document.createElement('script');
      const fail = () => {
        clearTimeout(timer);
        delete w[name];
        script.remove();
        loads.delete(key);
        reject(new Error(`The CAPTCHA script did not load: ${address}`));
      };
      const timer = setTimeout(fail, SCRIPT_TIMEOUT_MS);
      // Each provider calls the function its script's `onload` parameter names once its API is ready.
      w[name] = () => {
        clearTimeout(timer);
        delete w[name];
        const api = w[GLOBALS[captcha.provider]] as CaptchaApi | undefined;
        if (api?.render) resolve(api);
        else fail();
      };
      const url = new URL(address, location.href);
      url.searchParams.set('onload', name);
      if (!url.searchParams.has('render')) url.searchParams.set('render', 'explicit');
      script.src = url.href;
      script.async = true;
      script.onerror = fail;
      document.head.append(script);
    });
  }
  loads.set(key, load);
  return load;
}

/**
 * One challenge, shown in the widget's `captcha` slot. `onChange` is told each state, with the token
 * ('' until solved, and again once it expires or is reset).
 */
export class Challenge {
  readonly #box = document.createElement('div');
  #api: CaptchaApi | undefined;
  #id: string | number | undefined;
  #state: ChallengeState = 'loading';
  #removed = false;

  constructor(
    host: HTMLElement,
    captcha: WidgetCaptcha,
    readonly onChange: (state: ChallengeState, token: string) => void,
  ) {
    this.#box.slot = 'captcha';
    this.#box.dataset.refkitCaptcha = captcha.provider;
    host.append(this.#box);
    onChange('loading', '');
    loadCaptchaApi(captcha).then(
      (api) => {
        if (this.#removed) return;
        this.#api = api;
        const unsolved = () => this.#set('shown', '');
        this.#id = api.render(this.#box, {
          sitekey: captcha.siteKey,
          callback: (token: unknown) => (typeof token === 'string' && token ? this.#set('solved', token) : unsolved()),
          'expired-callback': unsolved,
          // The provider shows what went wrong in its own frame, and offers to try again.
          'error-callback': unsolved,
        });
        if (this.#state === 'loading') unsolved();
      },
      () => this.#set('error', ''),
    );
  }

  #set(state: ChallengeState, token: string): void {
    if (this.#removed) return;
    this.#state = state;
    this.onChange(state, token);
  }

  /** A new challenge for a new token (a token is good for one sign-up). */
  reset(): void {
    if (!this.#api || this.#id === undefined) return;
    this.#api.reset(this.#id);
    this.#set('shown', '');
  }

  /** Takes the challenge off the page. */
  remove(): void {
    this.#removed = true;
    try {
      if (this.#id !== undefined) this.#api?.remove?.(this.#id);
    } catch {
      // Already gone with its frame: nothing else to undo.
    }
    this.#box.remove();
  }
}
