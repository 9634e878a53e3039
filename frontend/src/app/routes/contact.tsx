import { ClockIcon, MapPinIcon } from 'lucide-react'
import { useEffect } from 'react'

import { ContactForm } from '@/features/contact/components/contact-form'
import { useDocumentMeta } from '@/lib/document-meta'
import { useDiscoverTranslation } from '@/lib/i18n/discover'

/** /contact (linked from the About page and the footer): the contact form, with working hours and the headquarters. */
export function ContactRoute() {
  const { t, td } = useDiscoverTranslation()
  useDocumentMeta(`${td('contact.title')} | ${t('app.name')}`, td('contact.intro'))

  useEffect(() => {
    window.scrollTo?.(0, 0)
  }, [])

  return (
    <div className="mx-auto grid max-w-5xl gap-10 px-4 py-12 md:grid-cols-[2fr_3fr]">
      <header>
        <h1 className="text-3xl font-bold tracking-tight">{td('contact.title')}</h1>
        <p className="mt-3 text-muted-foreground">{td('contact.intro')}</p>
        <p className="mt-6 flex items-center gap-2 text-muted-foreground">
          <ClockIcon className="size-4" aria-hidden="true" />
          {t('about.hours')}
        </p>
        <p className="mt-2 flex items-center gap-2 text-muted-foreground">
          <MapPinIcon className="size-4" aria-hidden="true" />
          {t('about.headquarters')}
        </p>
      </header>
      <ContactForm />
    </div>
  )
}
