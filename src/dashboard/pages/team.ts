/** The team: members and their roles, open invitations; owners invite, change roles and remove (docs/team.md). */
import { css, html, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import type { Invitation, Member, RoleName } from '../../api/client.js';
import { api } from '../api.js';
import { confirmAction } from '../confirm.js';
import { dateTime } from '../format.js';
import { Page } from '../page.js';

const ROLES: { role: RoleName; what: string }[] = [
  { role: 'owner', what: 'everything, members and API keys included' },
  { role: 'admin', what: 'every change but members and API keys' },
  { role: 'viewer', what: 'reads only' },
];

@customElement('rk-team')
export class Team extends Page {
  static override styles = [
    ...Page.styles,
    css`
      form.add { display: flex; flex-wrap: wrap; gap: 12px; align-items: end; }
      form.add .field { margin: 0; flex: 1 1 200px; }
      h2.list { margin-top: 32px; }
      td select { width: auto; }
    `,
  ];
  /** The signed-in user's email: their own row shows their role, and owners' controls show only to owners. */
  @property() email = '';
  @state() private members: Member[] = [];
  @state() private invitations: Invitation[] = [];

  override connectedCallback(): void {
    super.connectedCallback();
    void this.#load();
  }

  async #load() {
    this.members = (await this.attempt(() => api().listMembers())) ?? this.members;
    this.invitations = (await this.attempt(() => api().listInvitations())) ?? this.invitations;
  }

  get #isOwner() {
    return this.members.find((m) => m.email === this.email)?.role === 'owner';
  }

  async #invite(e: SubmitEvent) {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const invitation = await this.attempt(() => api().inviteMember(String(data.get('email')).trim(), String(data.get('role')) as RoleName));
    if (!invitation) return;
    form.reset();
    this.notice = `Invitation sent to ${invitation.email}.`;
    await this.#load();
  }

  /** Runs a change, then shows the lists as they are now (a refused role change snaps back) and says how it went. */
  async #change(fn: () => Promise<unknown>, done: string) {
    const ok = await this.attempt(fn);
    const error = this.error;
    await this.#load();
    if (ok) this.notice = done;
    else this.error = error;
  }

  #setRole(m: Member, role: RoleName) {
    return this.#change(() => api().changeMemberRole(m.email, role), `${m.email} is now ${role === 'admin' ? 'an admin' : `a ${role}`}.`);
  }

  async #remove(m: Member) {
    if (!(await confirmAction(this, 'Remove this member?', `${m.email} is signed out at once and can no longer sign in.`, 'Remove member', true))) return;
    await this.#change(() => api().removeMember(m.email), `${m.email} removed.`);
  }

  #revoke(i: Invitation) {
    return this.#change(() => api().revokeInvitation(i.id), `Invitation to ${i.email} revoked.`);
  }

  override render() {
    const owner = this.#isOwner;
    return html`<div class="page-head">
        <div>
          <h1>Team</h1>
          <p>${ROLES.map((r, i) => html`${i ? ' · ' : ''}<strong>${r.role}</strong>: ${r.what}`)}.</p>
        </div>
      </div>
      ${this.messages()}
      ${owner
        ? html`<section class="card" aria-labelledby="invite-h">
            <h2 id="invite-h">Invite someone</h2>
            <form class="add" @submit=${this.#invite}>
              <div class="field"><label for="email">Email</label><input id="email" name="email" type="email" required maxlength="320" /></div>
              <div class="field">
                <label for="role">Role</label>
                <select id="role" name="role">${ROLES.map((r) => html`<option value=${r.role} ?selected=${r.role === 'viewer'}>${r.role}</option>`)}</select>
              </div>
              <button class="primary" type="submit">Send invitation</button>
            </form>
          </section>`
        : nothing}
      <h2 class="list">Members</h2>
      <div class="table-wrap">
        <table class="records">
          <thead><tr><th>Email</th><th>Role</th><th>Since</th><th><span class="sr-only">Actions</span></th></tr></thead>
          <tbody>
            ${this.members.map(
              (m) => html`<tr>
                <td>${m.email}${m.email === this.email ? html` <span class="badge">you</span>` : nothing}</td>
                <td data-label="Role">
                  ${owner
                    ? html`<select aria-label="Role of ${m.email}" @change=${(e: Event) => this.#setRole(m, (e.target as HTMLSelectElement).value as RoleName)}>
                        ${ROLES.map((r) => html`<option value=${r.role} ?selected=${r.role === m.role}>${r.role}</option>`)}
                      </select>`
                    : html`<span class="badge">${m.role}</span>`}
                </td>
                <td data-label="Since">${dateTime(m.createdOn)}</td>
                <td>${owner ? html`<button class="small danger-ghost" aria-label="Remove ${m.email}" @click=${() => this.#remove(m)}>Remove</button>` : nothing}</td>
              </tr>`,
            )}
          </tbody>
        </table>
      </div>
      <h2 class="list">Open invitations</h2>
      <div class="table-wrap">
        <table class="records">
          <thead><tr><th>Email</th><th>Role</th><th>Invited by</th><th>Expires</th><th><span class="sr-only">Actions</span></th></tr></thead>
          <tbody>
            ${this.invitations.length === 0
              ? html`<tr><td colspan="5" class="empty">No open invitations.</td></tr>`
              : this.invitations.map(
                  (i) => html`<tr>
                    <td>${i.email}</td>
                    <td data-label="Role"><span class="badge">${i.role}</span></td>
                    <td data-label="Invited by">${i.invitedBy}</td>
                    <td data-label="Expires">${dateTime(i.expiresOn)}</td>
                    <td>${owner ? html`<button class="small danger-ghost" aria-label="Revoke the invitation to ${i.email}" @click=${() => this.#revoke(i)}>Revoke</button>` : nothing}</td>
                  </tr>`,
                )}
          </tbody>
        </table>
      </div>`;
  }
}
