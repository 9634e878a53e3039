import { useId } from 'react'

import { languages, useTranslation, type Language } from '@/lib/i18n/i18n'

/** A small native select between English and Kiswahili. */
function LanguageSwitcher() {
  const { t, lang, setLanguage } = useTranslation()
  const id = useId()

  return (
    <div className="flex items-center">
      <label htmlFor={id} className="sr-only">
        {t('language.label')}
      </label>
      <select
        id={id}
        value={lang}
        onChange={(event) => setLanguage(event.target.value as Language)}
        className="h-9 rounded-md border border-input bg-background px-2 text-sm text-foreground focus-visible:ring-[3px] focus-visible:ring-ring/50 focus-visible:outline-none"
      >
        {languages.map((code) => (
          <option key={code} value={code}>
            {t(`language.${code}` as const)}
          </option>
        ))}
      </select>
    </div>
  )
}

export { LanguageSwitcher }
