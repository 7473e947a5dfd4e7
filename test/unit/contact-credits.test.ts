/**
 * Getting credits is never a dead end (issue 41, point 4): the contact a stage names (`-c contactCredits`,
 * RETOUCHE_CONTACT_CREDITS) as a link, or on a local stack the admin command that adds credits, the account's
 * address filled in as one shell word (core/domaine/contact-credits.ts).
 */
import { describe, expect, it } from 'vitest';
import { contactCreditsDepuisEnv, lienDeContact } from '../../lambdas/core/domaine/contact-credits';

const COMMANDE = 'npm run --silent admin -- add-credits --email {email} --credits 20';

describe('the contact for credits', () => {
  it('makes a mailto: link of an address, keeps an https URL, refuses anything else', () => {
    expect(lienDeContact('ventes@retouche.example')).toBe('mailto:ventes@retouche.example');
    expect(lienDeContact('MAILTO:ventes@retouche.example')).toBe('mailto:ventes@retouche.example');
    expect(lienDeContact('https://retouche.example/credits')).toBe('https://retouche.example/credits');
    for (const refuse of ['', 'ventes', 'http://retouche.example', 'javascript:alert(1)', 'https://a:b@retouche.example', 'https://retouche.example/a b', 42])
      expect(lienDeContact(refuse), String(refuse)).toBeUndefined();
  });

  it('answers the link a stage names, whoever asks; a bad one stops the function at its start', () => {
    expect(contactCreditsDepuisEnv({ RETOUCHE_CONTACT_CREDITS: 'ventes@retouche.example', RETOUCHE_COMMANDE_CREDITS: COMMANDE })('a@b.example')).toEqual({
      lien: 'mailto:ventes@retouche.example',
    });
    expect(() => contactCreditsDepuisEnv({ RETOUCHE_CONTACT_CREDITS: 'ftp://retouche.example' })).toThrow(/RETOUCHE_CONTACT_CREDITS must be an e-mail address/);
    expect(contactCreditsDepuisEnv({})('a@b.example')).toBeNull();
  });

  it("locally, the operator's own command with the account's address, quoted when a shell would read it otherwise", () => {
    const contact = contactCreditsDepuisEnv({ RETOUCHE_COMMANDE_CREDITS: COMMANDE });
    expect(contact('agent+1@example.com')).toEqual({ commande: 'npm run --silent admin -- add-credits --email agent+1@example.com --credits 20' });
    expect(contact("o'neil@example.com")?.commande).toBe("npm run --silent admin -- add-credits --email 'o'\\''neil@example.com' --credits 20");
    expect(contact('$(rm -rf ~)@example.com')?.commande).toContain("--email '$(rm -rf ~)@example.com' --credits");
  });
});
