import { MoonIcon, SunIcon } from 'lucide-react'

import { Button } from '@/components/ui/button'
import { toast } from '@/hooks/use-toast'
import { useTranslation } from '@/lib/i18n/i18n'
import { useTheme } from '@/lib/theme'

/** Flips between light and dark, stores the choice and confirms it. */
function ThemeToggle() {
  const { theme, setTheme } = useTheme()
  const { t } = useTranslation()
  const next = theme === 'dark' ? 'light' : 'dark'

  return (
    <Button
      variant="ghost"
      size="icon"
      onClick={() => {
        setTheme(next)
        toast({ title: t(next === 'dark' ? 'theme.darkActivated' : 'theme.lightActivated') })
      }}
    >
      {theme === 'dark' ? <SunIcon aria-hidden="true" /> : <MoonIcon aria-hidden="true" />}
      <span className="sr-only">
        {t(next === 'dark' ? 'theme.switchToDark' : 'theme.switchToLight')}
      </span>
    </Button>
  )
}

export { ThemeToggle }
