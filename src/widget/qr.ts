/**
 * The share link as an SVG QR code, from the `qrcode` package, loaded only when a share view needs one
 * (it is about a third of the widget's code; the sign-up form never needs it).
 */
export async function qrSvg(text: string): Promise<string> {
  const { default: QRCode } = await import('qrcode');
  return QRCode.toString(text, { type: 'svg', margin: 1, errorCorrectionLevel: 'M' });
}
