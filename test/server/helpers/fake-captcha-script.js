// A stand-in for the CAPTCHA providers' scripts in tests (Turnstile's, hCaptcha's and reCAPTCHA's api.js),
// served from loopback by ./fake-captcha.ts (the service's CAPTCHA_SCRIPT_URL) and, as a file, to the
// widget's unit tests. Like each provider's script loaded with `?render=explicit&onload=<name>`, it renders
// nothing by itself, defines the provider's global (here all three: window.turnstile, window.hcaptcha,
// window.grecaptcha) with render, reset, getResponse and remove, and then calls the function `onload`
// names. A rendered challenge is a button, "I am human"; pressing it solves the challenge: the render's
// `callback` is given a token, one the stand-in siteverify issued (its /token, named by this script's
// `tokens` parameter), or one made up here when there is none.
(function () {
  const src = new URL(document.currentScript.src);
  const tokens = src.searchParams.get('tokens');
  const log = (window.fakeCaptcha = window.fakeCaptcha || { loads: [], renders: [], resets: [], removes: [] });
  log.loads.push(src.search);
  let made = 0;

  async function token(sitekey) {
    if (!tokens) return `local-token-${++made}`;
    const res = await fetch(`${tokens}?sitekey=${encodeURIComponent(sitekey)}`);
    return res.text();
  }

  function provider(name, ids) {
    const widgets = new Map();
    let last;
    const find = (id) => widgets.get(id === undefined ? last : id);
    return {
      render(container, params) {
        const box = typeof container === 'string' ? document.getElementById(container) : container;
        const id = ids();
        const button = document.createElement('button');
        button.type = 'button';
        button.textContent = 'I am human';
        button.dataset.fakeCaptcha = name;
        const widget = { button, params, response: '' };
        button.addEventListener('click', async () => {
          button.disabled = true;
          widget.response = await token(params.sitekey);
          button.textContent = 'Verified';
          if (typeof params.callback === 'function') params.callback(widget.response);
        });
        box.append(button);
        widgets.set(id, widget);
        last = id;
        log.renders.push({ provider: name, sitekey: params.sitekey, id });
        return id;
      },
      reset(id) {
        const widget = find(id);
        if (!widget) return;
        log.resets.push({ provider: name, id });
        widget.response = '';
        widget.button.disabled = false;
        widget.button.textContent = 'I am human';
      },
      getResponse(id) {
        return find(id)?.response ?? '';
      },
      remove(id) {
        const widget = find(id);
        if (!widget) return;
        log.removes.push({ provider: name, id });
        widget.button.remove();
        widgets.delete(id === undefined ? last : id);
      },
    };
  }

  // Turnstile's widget ids are strings, hCaptcha's and reCAPTCHA's numbers.
  let turnstileIds = 0;
  let hcaptchaIds = 0;
  let recaptchaIds = 0;
  window.turnstile = provider('turnstile', () => `cf-chl-widget-${++turnstileIds}`);
  window.hcaptcha = provider('hcaptcha', () => hcaptchaIds++);
  window.grecaptcha = provider('recaptcha', () => recaptchaIds++);

  const onload = src.searchParams.get('onload');
  if (onload) setTimeout(() => window[onload]?.(), 0);
})();
