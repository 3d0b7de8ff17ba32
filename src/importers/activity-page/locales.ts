/**
 * Languages whose names Takeout may write. en-US first: a name two places share (CST) means theirs.
 * Then those with zone names of their own, so a zone name is found before the rest are listed
 * (the rest have only "GMT+1" and are here for their months and AM/PM).
 */
export const LOCALES = `
  en-US en-GB en-IN en-CA en-AU en-NZ en-IE en-ZA ja de pt-BR es cs sk hi id ms fr-CA pt-PT it nl sv da
  nb pl hu ro hr sr bg el lv ca eu gl ar fa mr bn ta te vi af zh-TW zh-HK
  fr es-419 es-MX fi is sl ru uk tr lt et he ur th fil sw ko zh-CN
`
  .trim()
  .split(/\s+/);
