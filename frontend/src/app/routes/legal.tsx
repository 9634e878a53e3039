import { useEffect } from 'react'

import { useDocumentMeta } from '@/lib/document-meta'
import type { MessageKey } from '@/lib/i18n/en'
import { useTranslation } from '@/lib/i18n/i18n'

type Section = { title: MessageKey; body: MessageKey }

const termsSections: readonly Section[] = [1, 2, 3, 4, 5, 6, 7].map((n) => ({
  title: `terms.s${n}Title` as MessageKey,
  body: `terms.s${n}Body` as MessageKey,
}))

const privacySections: readonly Section[] = [1, 2, 3, 4, 5, 6].map((n) => ({
  title: `privacy.s${n}Title` as MessageKey,
  body: `privacy.s${n}Body` as MessageKey,
}))

function LegalPage({ title, intro, sections }: { title: MessageKey; intro: MessageKey; sections: readonly Section[] }) {
  const { t } = useTranslation()
  useDocumentMeta(`${t(title)} | ${t('app.name')}`, t(intro))
  useEffect(() => {
    window.scrollTo?.(0, 0)
  }, [])

  return (
    <article className="mx-auto max-w-3xl px-4 py-12">
      <h1 className="text-3xl font-bold tracking-tight">{t(title)}</h1>
      <p className="mt-2 text-sm text-muted-foreground">{t('legal.updated')}</p>
      <p className="mt-4">{t(intro)}</p>
      {sections.map(({ title: heading, body }) => (
        <section key={heading} className="mt-8">
          <h2 className="text-xl font-semibold">{t(heading)}</h2>
          <p className="mt-2 text-muted-foreground">{t(body)}</p>
        </section>
      ))}
    </article>
  )
}

/** `/terms`: terms of service under Kenyan law. */
export function TermsRoute() {
  return <LegalPage title="terms.title" intro="terms.intro" sections={termsSections} />
}

/** `/privacy`: privacy notice under the Data Protection Act, 2019. */
export function PrivacyRoute() {
  return <LegalPage title="privacy.title" intro="privacy.intro" sections={privacySections} />
}
