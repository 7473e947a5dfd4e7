/** Many calls, a few at a time: enough to overlap their latency, few enough not to flood a service. */
export const parPaquets = async <T>(elements: readonly T[], taille: number, fn: (element: T) => Promise<void>): Promise<void> => {
  for (let debut = 0; debut < elements.length; debut += taille) {
    await Promise.all(elements.slice(debut, debut + taille).map(fn));
  }
};
