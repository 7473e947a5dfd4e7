/**
 * A copy to the clipboard that leaves a way when the browser refuses it (an old browser, a permission refused):
 * what was to be copied is selected instead, to copy by hand. One place, so that every copy button of the site
 * falls back alike.
 */

/** True when it was copied; otherwise `aSelectionner` (a field, or an element whose text it is) is selected. */
export const copierOuSelectionner = async (texte: string, aSelectionner: HTMLElement | null | undefined): Promise<boolean> => {
  try {
    await navigator.clipboard.writeText(texte);
    return true;
  } catch {
    if (aSelectionner instanceof HTMLInputElement) aSelectionner.select();
    else if (aSelectionner) getSelection()?.selectAllChildren(aSelectionner);
    return false;
  }
};
