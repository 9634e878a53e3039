import { DownloadIcon, XIcon } from 'lucide-react'
import { useEffect, useState } from 'react'

import { Button } from '@/components/ui/button'
import { toast } from '@/hooks/use-toast'
import { useTranslation } from '@/lib/i18n/i18n'

/** The event Chromium fires when the app can be installed. */
type BeforeInstallPromptEvent = Event & {
  prompt(): Promise<void>
  userChoice: Promise<{ outcome: 'accepted' | 'dismissed' }>
}

/**
 * The floating install card (spec §2): shown when the browser offers
 * installation, hidden after Install or dismissal.
 */
function InstallPrompt() {
  const { t } = useTranslation()
  const [offer, setOffer] = useState<BeforeInstallPromptEvent | null>(null)

  useEffect(() => {
    const onOffer = (event: Event) => {
      event.preventDefault()
      setOffer(event as BeforeInstallPromptEvent)
    }
    window.addEventListener('beforeinstallprompt', onOffer)
    return () => window.removeEventListener('beforeinstallprompt', onOffer)
  }, [])

  if (!offer) return null

  const install = async () => {
    setOffer(null)
    await offer.prompt()
    const { outcome } = await offer.userChoice
    if (outcome === 'accepted') toast({ title: t('install.done', { name: t('app.name') }), variant: 'success' })
  }

  return (
    <section
      aria-labelledby="install-title"
      className="fixed right-4 bottom-20 z-50 w-80 rounded-xl border bg-card p-4 text-card-foreground shadow-lg md:bottom-4"
    >
      <h2 id="install-title" className="font-semibold">
        {t('install.title', { name: t('app.name') })}
      </h2>
      <p className="mt-1 text-sm text-muted-foreground">{t('install.body')}</p>
      <div className="mt-3 flex gap-2">
        <Button size="sm" onClick={install}>
          <DownloadIcon aria-hidden="true" />
          {t('install.install')}
        </Button>
        <Button size="sm" variant="ghost" onClick={() => setOffer(null)}>
          <XIcon aria-hidden="true" />
          {t('install.dismiss')}
        </Button>
      </div>
    </section>
  )
}

export { InstallPrompt }
