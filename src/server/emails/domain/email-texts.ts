/**
 * The lifecycle emails' default texts in the five languages, and the words of their frame (button,
 * footer, the unsubscribe pages). A campaign's owner may replace any subject and body per language
 * (email_texts); the frame stays. Bodies are plain text: a blank line starts a paragraph, and
 * `{variables}` (EMAIL_VARIABLES) are filled in per recipient.
 */
import type { EmailKind } from '../../../api/email-schemas.js';
import type { Locale } from '../../../api/locales.js';
import type { PayoutProblem } from './email-outbox.js';

/** The variables a subject or body may use. */
export const EMAIL_VARIABLES = [
  'firstName',
  'campaign',
  'shareLink',
  'referralCode',
  'reward',
  'rewardCode',
  'availableOn',
  'friend',
  'milestone',
  'referrals',
  'friends',
  'rank',
  'places',
  'reason',
  'portalLink',
] as const;
export type EmailVariable = (typeof EMAIL_VARIABLES)[number];

export interface EmailText {
  subject: string;
  body: string;
}

/** The frame around a text, per language. */
export interface FrameWords {
  /** The button of each email (it opens the share link; payout_failed's, the participant's portal). */
  action: Record<EmailKind, string>;
  rewardCode: string;
  /** Under a held reward; {availableOn} is the date. */
  heldUntil: string;
  /** Why a cash payout did not reach the participant: `{reason}` of payout_failed, in plain words. */
  payoutProblem: Record<PayoutProblem, string>;
  qrAlt: string;
  /** Why the email was sent; {campaign} is the campaign's name. */
  reason: string;
  unsubscribe: string;
  /** The unsubscribe pages. */
  unsubscribeQuestion: string;
  unsubscribeButton: string;
  unsubscribed: string;
}

export const DEFAULT_TEXTS: Record<Locale, Record<EmailKind, EmailText>> = {
  en: {
    welcome: {
      subject: 'Welcome to {campaign}',
      body: 'Hi {firstName},\n\nThanks for joining {campaign}. Share your personal link with friends: when they join and qualify, you both earn rewards.\n\nYour link: {shareLink}',
    },
    friend_joined: {
      subject: '{friend} joined through your link',
      body: 'Hi {firstName},\n\n{friend} just joined {campaign} through your link. You earn your reward once they qualify.',
    },
    reward_earned: {
      subject: 'You earned {reward}',
      body: 'Hi {firstName},\n\nGood news: you earned {reward} with {campaign}.',
    },
    reward_available: {
      subject: 'Your {reward} reward is available',
      body: 'Hi {firstName},\n\nThe {reward} you earned with {campaign} is now available to use.',
    },
    reward_reversed: {
      subject: 'Your {reward} reward was taken back',
      body: 'Hi {firstName},\n\nThe {reward} you earned with {campaign} was taken back: the purchase it was for was refunded or disputed. What you earn from your other referrals is not affected.',
    },
    milestone: {
      subject: 'Milestone reached: {milestone}',
      body: 'Hi {firstName},\n\nYou have referred {friends} to {campaign} and reached the {milestone} milestone. Congratulations!',
    },
    reminder: {
      subject: 'Your friends are missing out on {campaign}',
      body: "Hi {firstName},\n\nYou joined {campaign} a while ago but haven't shared your link yet. Send it to a friend: when they join and qualify, you both earn rewards.\n\nYour link: {shareLink}",
    },
    access_granted: {
      subject: "You're in: {campaign}",
      body: "Hi {firstName},\n\nYour place on the {campaign} waitlist has come up: you have access now. Keep sharing your link, your friends count too.\n\nYour link: {shareLink}",
    },
    leaderboard_top: {
      subject: 'You are #{rank} on the {campaign} leaderboard',
      body: 'Hi {firstName},\n\nWith {friends} who joined and qualified, you are #{rank} on the {campaign} leaderboard, which shows the top {places}. Keep sharing your link to stay there.\n\nYour link: {shareLink}',
    },
    payout_paid: {
      subject: 'Your {reward} payout is paid',
      body: 'Hi {firstName},\n\nWe paid you {reward} from the rewards you earned with {campaign}. Thanks for spreading the word!',
    },
    payout_failed: {
      subject: "Your {reward} payout didn't reach you",
      body: "Hi {firstName},\n\nWe couldn't pay out the {reward} you earned with {campaign}: {reason}. The amount is back on your balance, nothing is lost.\n\nPlease check your payout details on your rewards page, so that the next payout reaches you: {portalLink}",
    },
  },
  de: {
    welcome: {
      subject: 'Willkommen bei {campaign}',
      body: 'Hallo {firstName},\n\ndanke, dass du bei {campaign} mitmachst. Teile deinen persönlichen Link mit Freunden: Wenn sie beitreten und sich qualifizieren, erhaltet ihr beide eine Belohnung.\n\nDein Link: {shareLink}',
    },
    friend_joined: {
      subject: '{friend} ist über deinen Link beigetreten',
      body: 'Hallo {firstName},\n\n{friend} ist gerade über deinen Link {campaign} beigetreten. Deine Belohnung erhältst du, sobald sich {friend} qualifiziert.',
    },
    reward_earned: {
      subject: 'Du hast {reward} verdient',
      body: 'Hallo {firstName},\n\ngute Nachrichten: Du hast mit {campaign} {reward} verdient.',
    },
    reward_available: {
      subject: 'Deine Belohnung von {reward} ist verfügbar',
      body: 'Hallo {firstName},\n\ndie {reward}, die du mit {campaign} verdient hast, kannst du jetzt einlösen.',
    },
    reward_reversed: {
      subject: 'Deine Prämie von {reward} wurde zurückgenommen',
      body: 'Hallo {firstName},\n\ndie {reward}, die du mit {campaign} verdient hast, wurden zurückgenommen: Der Kauf, für den sie galten, wurde erstattet oder angefochten. Was du mit deinen anderen Empfehlungen verdienst, bleibt davon unberührt.',
    },
    milestone: {
      subject: 'Meilenstein erreicht: {milestone}',
      body: 'Hallo {firstName},\n\ndu hast {friends} zu {campaign} eingeladen und den Meilenstein {milestone} erreicht. Herzlichen Glückwunsch!',
    },
    reminder: {
      subject: 'Deine Freunde verpassen {campaign}',
      body: 'Hallo {firstName},\n\ndu bist {campaign} vor einer Weile beigetreten, hast deinen Link aber noch nicht geteilt. Schick ihn einem Freund: Wenn er beitritt und sich qualifiziert, erhaltet ihr beide eine Belohnung.\n\nDein Link: {shareLink}',
    },
    access_granted: {
      subject: 'Du bist dabei: {campaign}',
      body: 'Hallo {firstName},\n\ndein Platz auf der Warteliste von {campaign} ist an der Reihe: Du hast jetzt Zugang. Teile deinen Link weiter, deine Freunde zählen auch.\n\nDein Link: {shareLink}',
    },
    leaderboard_top: {
      subject: 'Du bist Nr. {rank} in der Bestenliste von {campaign}',
      body: 'Hallo {firstName},\n\nmit deinen qualifizierten Empfehlungen ({friends}) bist du Nr. {rank} in der Bestenliste von {campaign}, die die besten {places} zeigt. Teile deinen Link weiter, um dort zu bleiben.\n\nDein Link: {shareLink}',
    },
    payout_paid: {
      subject: 'Deine Auszahlung von {reward} ist erfolgt',
      body: 'Hallo {firstName},\n\nwir haben dir {reward} aus den Belohnungen ausgezahlt, die du mit {campaign} verdient hast. Danke fürs Weitersagen!',
    },
    payout_failed: {
      subject: 'Deine Auszahlung von {reward} ist nicht angekommen',
      body: 'Hallo {firstName},\n\nwir konnten dir die {reward}, die du mit {campaign} verdient hast, nicht auszahlen: {reason}. Der Betrag ist wieder auf deinem Guthaben, es geht nichts verloren.\n\nBitte prüfe deine Auszahlungsdaten auf deiner Belohnungsseite, damit die nächste Auszahlung ankommt: {portalLink}',
    },
  },
  fr: {
    welcome: {
      subject: 'Bienvenue dans {campaign}',
      body: "Bonjour {firstName},\n\nMerci d'avoir rejoint {campaign}. Partagez votre lien personnel avec vos amis : quand ils s'inscrivent et se qualifient, vous êtes tous les deux récompensés.\n\nVotre lien : {shareLink}",
    },
    friend_joined: {
      subject: '{friend} a rejoint le programme grâce à votre lien',
      body: 'Bonjour {firstName},\n\n{friend} vient de rejoindre {campaign} grâce à votre lien. Vous recevrez votre récompense dès que {friend} sera qualifié.',
    },
    reward_earned: {
      subject: 'Vous avez gagné {reward}',
      body: "Bonjour {firstName},\n\nBonne nouvelle : vous avez gagné {reward} avec {campaign}.",
    },
    reward_available: {
      subject: 'Votre récompense de {reward} est disponible',
      body: 'Bonjour {firstName},\n\nLa récompense de {reward} gagnée avec {campaign} est maintenant disponible.',
    },
    reward_reversed: {
      subject: 'Votre récompense de {reward} a été reprise',
      body: "Bonjour {firstName},\n\nLa récompense de {reward} gagnée avec {campaign} a été reprise : l'achat auquel elle correspondait a été remboursé ou contesté. Ce que vous gagnez avec vos autres parrainages n'est pas concerné.",
    },
    milestone: {
      subject: 'Palier atteint : {milestone}',
      body: 'Bonjour {firstName},\n\nVous avez parrainé {friends} pour {campaign} et atteint le palier {milestone}. Félicitations !',
    },
    reminder: {
      subject: 'Vos amis passent à côté de {campaign}',
      body: "Bonjour {firstName},\n\nVous avez rejoint {campaign} il y a quelque temps, mais vous n'avez pas encore partagé votre lien. Envoyez-le à un ami : quand il s'inscrit et se qualifie, vous êtes tous les deux récompensés.\n\nVotre lien : {shareLink}",
    },
    access_granted: {
      subject: "C'est à vous : {campaign}",
      body: "Bonjour {firstName},\n\nVotre tour est arrivé sur la liste d'attente de {campaign} : vous avez désormais accès. Continuez à partager votre lien, vos amis comptent aussi.\n\nVotre lien : {shareLink}",
    },
    leaderboard_top: {
      subject: 'Vous êtes n° {rank} du classement de {campaign}',
      body: "Bonjour {firstName},\n\nAvec vos parrainages qualifiés ({friends}), vous êtes n° {rank} du classement de {campaign}, qui montre les {places} premiers. Continuez à partager votre lien pour y rester.\n\nVotre lien : {shareLink}",
    },
    payout_paid: {
      subject: 'Votre versement de {reward} a été effectué',
      body: 'Bonjour {firstName},\n\nNous vous avons versé {reward} au titre des récompenses gagnées avec {campaign}. Merci de faire passer le mot !',
    },
    payout_failed: {
      subject: 'Votre versement de {reward} ne vous est pas parvenu',
      body: "Bonjour {firstName},\n\nNous n'avons pas pu vous verser la récompense de {reward} gagnée avec {campaign} : {reason}. Le montant est de nouveau sur votre solde, rien n'est perdu.\n\nVérifiez vos informations de versement sur votre page de récompenses, pour que le prochain versement vous parvienne : {portalLink}",
    },
  },
  es: {
    welcome: {
      subject: 'Te damos la bienvenida a {campaign}',
      body: 'Hola {firstName}:\n\nGracias por unirte a {campaign}. Comparte tu enlace personal con tus amigos: cuando se unan y cumplan los requisitos, los dos recibiréis una recompensa.\n\nTu enlace: {shareLink}',
    },
    friend_joined: {
      subject: '{friend} se ha unido con tu enlace',
      body: 'Hola {firstName}:\n\n{friend} acaba de unirse a {campaign} con tu enlace. Recibirás tu recompensa cuando cumpla los requisitos.',
    },
    reward_earned: {
      subject: 'Has ganado {reward}',
      body: 'Hola {firstName}:\n\nBuenas noticias: has ganado {reward} con {campaign}.',
    },
    reward_available: {
      subject: 'Tu recompensa de {reward} ya está disponible',
      body: 'Hola {firstName}:\n\nLa recompensa de {reward} que ganaste con {campaign} ya está disponible.',
    },
    reward_reversed: {
      subject: 'Tu recompensa de {reward} se ha retirado',
      body: 'Hola {firstName}:\n\nLa recompensa de {reward} que ganaste con {campaign} se ha retirado: la compra a la que correspondía se reembolsó o se disputó. Lo que ganas con tus otras invitaciones no cambia.',
    },
    milestone: {
      subject: 'Objetivo alcanzado: {milestone}',
      body: 'Hola {firstName}:\n\nHas invitado a {friends} a {campaign} y has alcanzado el objetivo {milestone}. ¡Enhorabuena!',
    },
    reminder: {
      subject: 'Tus amigos se están perdiendo {campaign}',
      body: 'Hola {firstName}:\n\nTe uniste a {campaign} hace un tiempo, pero aún no has compartido tu enlace. Envíaselo a un amigo: cuando se una y cumpla los requisitos, los dos recibiréis una recompensa.\n\nTu enlace: {shareLink}',
    },
    access_granted: {
      subject: 'Ya estás dentro: {campaign}',
      body: 'Hola {firstName}:\n\nHa llegado tu turno en la lista de espera de {campaign}: ya tienes acceso. Sigue compartiendo tu enlace, tus amigos también cuentan.\n\nTu enlace: {shareLink}',
    },
    leaderboard_top: {
      subject: 'Eres el n.º {rank} en la clasificación de {campaign}',
      body: 'Hola {firstName}:\n\nCon tus invitaciones que cumplieron los requisitos ({friends}), eres el n.º {rank} en la clasificación de {campaign}, que muestra los {places} primeros. Sigue compartiendo tu enlace para mantenerte ahí.\n\nTu enlace: {shareLink}',
    },
    payout_paid: {
      subject: 'Tu pago de {reward} se ha realizado',
      body: 'Hola {firstName}:\n\nTe hemos pagado {reward} de las recompensas que ganaste con {campaign}. ¡Gracias por correr la voz!',
    },
    payout_failed: {
      subject: 'Tu pago de {reward} no te ha llegado',
      body: 'Hola {firstName}:\n\nNo hemos podido pagarte la recompensa de {reward} que ganaste con {campaign}: {reason}. El importe vuelve a estar en tu saldo, no se pierde nada.\n\nRevisa tus datos de pago en tu página de recompensas para que el próximo pago te llegue: {portalLink}',
    },
  },
  ar: {
    welcome: {
      subject: 'مرحبًا بك في {campaign}',
      body: 'مرحبًا {firstName}،\n\nشكرًا لانضمامك إلى {campaign}. شارك رابطك الشخصي مع أصدقائك: عندما ينضمون ويستوفون الشروط، يحصل كلاكما على مكافأة.\n\nرابطك: {shareLink}',
    },
    friend_joined: {
      subject: 'انضم {friend} عبر رابطك',
      body: 'مرحبًا {firstName}،\n\nانضم {friend} للتو إلى {campaign} عبر رابطك. ستحصل على مكافأتك عندما يستوفي الشروط.',
    },
    reward_earned: {
      subject: 'لقد ربحت {reward}',
      body: 'مرحبًا {firstName}،\n\nأخبار سارة: لقد ربحت {reward} مع {campaign}.',
    },
    reward_available: {
      subject: 'مكافأتك البالغة {reward} متاحة الآن',
      body: 'مرحبًا {firstName}،\n\nأصبحت المكافأة البالغة {reward} التي ربحتها مع {campaign} متاحة للاستخدام الآن.',
    },
    reward_reversed: {
      subject: 'تم سحب مكافأتك البالغة {reward}',
      body: 'مرحبًا {firstName}،\n\nتم سحب المكافأة البالغة {reward} التي ربحتها مع {campaign}: فقد استُردّ مبلغ عملية الشراء المرتبطة بها أو اعتُرض عليها. ما تربحه من إحالاتك الأخرى لا يتأثر.',
    },
    milestone: {
      subject: 'لقد بلغت مرحلة: {milestone}',
      body: 'مرحبًا {firstName}،\n\nلقد دعوت {referrals} من أصدقائك إلى {campaign} وبلغت مرحلة {milestone}. تهانينا!',
    },
    reminder: {
      subject: 'أصدقاؤك يفوتهم {campaign}',
      body: 'مرحبًا {firstName}،\n\nانضممت إلى {campaign} منذ فترة لكنك لم تشارك رابطك بعد. أرسله إلى صديق: عندما ينضم ويستوفي الشروط، يحصل كلاكما على مكافأة.\n\nرابطك: {shareLink}',
    },
    access_granted: {
      subject: 'لقد حان دورك: {campaign}',
      body: 'مرحبًا {firstName}،\n\nحان دورك في قائمة انتظار {campaign}: أصبح بإمكانك الدخول الآن. واصل مشاركة رابطك، فأصدقاؤك يُحتسبون أيضًا.\n\nرابطك: {shareLink}',
    },
    leaderboard_top: {
      subject: 'أنت في المركز {rank} في لوحة صدارة {campaign}',
      body: 'مرحبًا {firstName}،\n\nمع {referrals} من الأصدقاء الذين انضموا واستوفوا الشروط، أنت في المركز {rank} في لوحة صدارة {campaign} التي تعرض أفضل {places}. واصل مشاركة رابطك لتبقى فيها.\n\nرابطك: {shareLink}',
    },
    payout_paid: {
      subject: 'تم دفع مكافأتك البالغة {reward}',
      body: 'مرحبًا {firstName}،\n\nدفعنا لك {reward} من المكافآت التي ربحتها مع {campaign}. شكرًا لنشرك الخبر!',
    },
    payout_failed: {
      subject: 'لم تصلك دفعتك البالغة {reward}',
      body: 'مرحبًا {firstName}،\n\nلم نتمكن من أن ندفع لك المكافأة البالغة {reward} التي ربحتها مع {campaign}: {reason}. عاد المبلغ إلى رصيدك، ولم يضِع شيء.\n\nيُرجى مراجعة بيانات الدفع في صفحة مكافآتك حتى تصلك الدفعة التالية: {portalLink}',
    },
  },
};

export const FRAME_WORDS: Record<Locale, FrameWords> = {
  en: {
    action: { welcome: 'Share my link', friend_joined: 'Invite more friends', reward_earned: 'Invite more friends', reward_available: 'Invite more friends', reward_reversed: 'Invite more friends', milestone: 'Keep sharing', reminder: 'Share my link', access_granted: 'Share my link', leaderboard_top: 'Keep sharing', payout_paid: 'Invite more friends', payout_failed: 'Check my payout details' },
    rewardCode: 'Your reward code',
    heldUntil: 'Available on {availableOn}',
    payoutProblem: { account: "the PayPal account didn't accept it", payment: "the payment didn't go through" },
    qrAlt: 'QR code of your share link',
    reason: 'You receive this email because you joined the referral program of {campaign}.',
    unsubscribe: 'Unsubscribe',
    unsubscribeQuestion: 'Stop receiving emails about the referral program of {campaign}?',
    unsubscribeButton: 'Unsubscribe',
    unsubscribed: 'You are unsubscribed: you will receive no more emails about the referral program of {campaign}.',
  },
  de: {
    action: { welcome: 'Meinen Link teilen', friend_joined: 'Weitere Freunde einladen', reward_earned: 'Weitere Freunde einladen', reward_available: 'Weitere Freunde einladen', reward_reversed: 'Weitere Freunde einladen', milestone: 'Weiter teilen', reminder: 'Meinen Link teilen', access_granted: 'Meinen Link teilen', leaderboard_top: 'Weiter teilen', payout_paid: 'Weitere Freunde einladen', payout_failed: 'Auszahlungsdaten prüfen' },
    rewardCode: 'Dein Gutscheincode',
    heldUntil: 'Verfügbar ab {availableOn}',
    payoutProblem: { account: 'das PayPal-Konto hat die Zahlung nicht angenommen', payment: 'die Zahlung ist nicht durchgegangen' },
    qrAlt: 'QR-Code deines Links',
    reason: 'Du erhältst diese E-Mail, weil du am Empfehlungsprogramm von {campaign} teilnimmst.',
    unsubscribe: 'Abmelden',
    unsubscribeQuestion: 'Keine E-Mails mehr zum Empfehlungsprogramm von {campaign} erhalten?',
    unsubscribeButton: 'Abmelden',
    unsubscribed: 'Du bist abgemeldet: Du erhältst keine E-Mails mehr zum Empfehlungsprogramm von {campaign}.',
  },
  fr: {
    action: { welcome: 'Partager mon lien', friend_joined: "Inviter d'autres amis", reward_earned: "Inviter d'autres amis", reward_available: "Inviter d'autres amis", reward_reversed: "Inviter d'autres amis", milestone: 'Continuer à partager', reminder: 'Partager mon lien', access_granted: 'Partager mon lien', leaderboard_top: 'Continuer à partager', payout_paid: "Inviter d'autres amis", payout_failed: 'Vérifier mes informations de versement' },
    rewardCode: 'Votre code de récompense',
    heldUntil: 'Disponible le {availableOn}',
    payoutProblem: { account: "le compte PayPal ne l'a pas accepté", payment: "le paiement n'a pas abouti" },
    qrAlt: 'Code QR de votre lien',
    reason: 'Vous recevez cet e-mail car vous participez au programme de parrainage de {campaign}.',
    unsubscribe: 'Se désabonner',
    unsubscribeQuestion: "Ne plus recevoir d'e-mails sur le programme de parrainage de {campaign} ?",
    unsubscribeButton: 'Se désabonner',
    unsubscribed: "Vous êtes désabonné : vous ne recevrez plus d'e-mails sur le programme de parrainage de {campaign}.",
  },
  es: {
    action: { welcome: 'Compartir mi enlace', friend_joined: 'Invitar a más amigos', reward_earned: 'Invitar a más amigos', reward_available: 'Invitar a más amigos', reward_reversed: 'Invitar a más amigos', milestone: 'Seguir compartiendo', reminder: 'Compartir mi enlace', access_granted: 'Compartir mi enlace', leaderboard_top: 'Seguir compartiendo', payout_paid: 'Invitar a más amigos', payout_failed: 'Revisar mis datos de pago' },
    rewardCode: 'Tu código de recompensa',
    heldUntil: 'Disponible el {availableOn}',
    payoutProblem: { account: 'la cuenta de PayPal no lo aceptó', payment: 'el pago no se completó' },
    qrAlt: 'Código QR de tu enlace',
    reason: 'Recibes este correo porque te uniste al programa de recomendación de {campaign}.',
    unsubscribe: 'Darse de baja',
    unsubscribeQuestion: '¿Dejar de recibir correos sobre el programa de recomendación de {campaign}?',
    unsubscribeButton: 'Darme de baja',
    unsubscribed: 'Te has dado de baja: no recibirás más correos sobre el programa de recomendación de {campaign}.',
  },
  ar: {
    action: { welcome: 'شارك رابطي', friend_joined: 'ادعُ المزيد من الأصدقاء', reward_earned: 'ادعُ المزيد من الأصدقاء', reward_available: 'ادعُ المزيد من الأصدقاء', reward_reversed: 'ادعُ المزيد من الأصدقاء', milestone: 'واصل المشاركة', reminder: 'شارك رابطي', access_granted: 'شارك رابطي', leaderboard_top: 'واصل المشاركة', payout_paid: 'ادعُ المزيد من الأصدقاء', payout_failed: 'راجع بيانات الدفع' },
    rewardCode: 'رمز مكافأتك',
    heldUntil: 'متاحة في {availableOn}',
    payoutProblem: { account: 'لم يقبلها حساب PayPal', payment: 'لم تكتمل عملية الدفع' },
    qrAlt: 'رمز QR لرابطك',
    reason: 'تتلقى هذه الرسالة لأنك انضممت إلى برنامج الإحالة الخاص بـ {campaign}.',
    unsubscribe: 'إلغاء الاشتراك',
    unsubscribeQuestion: 'هل تريد التوقف عن تلقي رسائل برنامج الإحالة الخاص بـ {campaign}؟',
    unsubscribeButton: 'إلغاء الاشتراك',
    unsubscribed: 'تم إلغاء اشتراكك: لن تتلقى المزيد من الرسائل حول برنامج الإحالة الخاص بـ {campaign}.',
  },
};
