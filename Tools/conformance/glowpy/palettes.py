"""The five themes' palettes (THEME-8, THEME-9) as this implementation draws them.

The spec defines the roles, the character of each theme and the audit every palette must pass
(THEME-11), but no colours: like the Inspiration catalogue, the colours are an app's content. These
are this implementation's own, designed to pass the audit (`themes.audit`). Where the corpus names a
theme's colour in prose we use it: the Default accent #A03A7A (contrast-010) and, in dark mode,
#F0A6D6 on the background #1A1120 (contrast-011). Every heat map ends at the theme's accent, and
Black & White draws its focus ring in the text colour.
"""

ROLES = ['accent', 'onAccent', 'accentContainer', 'onAccentContainer', 'background', 'surface', 'surfaceContainer',
         'primaryText', 'secondaryText', 'outline', 'outlineVariant', 'success', 'warning', 'error', 'focusRing',
         'reactionHeart', 'reactionFire', 'reactionClap', 'heatmap0', 'heatmap1', 'heatmap2', 'heatmap3', 'heatmap4']


def _palette(accent, on_accent, container, on_container, background, surface, surface_container, primary, secondary,
             outline, outline_variant, success, warning, error, focus, heart, fire, clap, heatmap):
    """A palette from its colours in the order of ROLES; `heatmap` lists levels 0 ... 3 (level 4 is the accent)."""
    values = [accent, on_accent, container, on_container, background, surface, surface_container, primary, secondary,
              outline, outline_variant, success, warning, error, focus, heart, fire, clap] + list(heatmap) + [accent]
    return dict(zip(ROLES, values))


PALETTES = {
    # Soft pinks and purples; a deep rose accent where text sits on it (THEME-9).
    'default': {
        'light': _palette('#A03A7A', '#FFFFFF', '#F9D8EC', '#4A1038', '#FFF7FB', '#FFFFFF', '#F7E9F2', '#2A1A2E', '#5E4A63',
                          '#8A6F8C', '#E6D6E2', '#2E7D4F', '#8A5A00', '#B3261E', '#7B2CBF', '#D6336C', '#C2410C', '#A16207',
                          ['#F4E6F0', '#E8C3DC', '#D696C0', '#BD679F']),
        'dark': _palette('#F0A6D6', '#3A0D2C', '#6B2456', '#FFD8EE', '#1A1120', '#241A2B', '#2F2337', '#F6EAF3', '#CDB8C8',
                         '#9C859A', '#3E3146', '#7DD3A0', '#F2C46D', '#FFB4AB', '#D0A8FF', '#FF8FB1', '#FFA066', '#F5C26B',
                         ['#33263B', '#553A5A', '#81527F', '#B577A8']),
    },
    'ocean': {
        'light': _palette('#00668A', '#FFFFFF', '#C4E7F5', '#002F42', '#F4F9FC', '#FFFFFF', '#E6F0F6', '#0F2A3A', '#44606F',
                          '#6F8A99', '#D3E1E8', '#2E7D4F', '#8A5A00', '#B3261E', '#0077B6', '#D6336C', '#C2410C', '#A16207',
                          ['#E8F2F7', '#B6D7E7', '#80B9D3', '#4A93B5']),
        'dark': _palette('#7CCFF2', '#00344A', '#004C66', '#C4E7F5', '#0B1A22', '#12232D', '#1B2F3B', '#E3F2F9', '#B3CAD6',
                         '#7F98A6', '#2B3F4B', '#7DD3A0', '#F2C46D', '#FFB4AB', '#9AD8FF', '#FF8FB1', '#FFA066', '#F5C26B',
                         ['#1A2E39', '#27495A', '#3C6F86', '#58A0C0']),
    },
    'forest': {
        'light': _palette('#2F6B3A', '#FFFFFF', '#CDE8C8', '#0E2E14', '#F6FAF4', '#FFFFFF', '#E8F1E5', '#1B2A1D', '#4A5E4C',
                          '#748A76', '#D5E2D3', '#2E7D4F', '#8A5A00', '#B3261E', '#3D7A2E', '#D6336C', '#C2410C', '#A16207',
                          ['#EAF3E7', '#BDDBB5', '#8CBC83', '#5F9A59']),
        'dark': _palette('#9ED89A', '#0E3312', '#24502A', '#CDE8C8', '#0F1A10', '#172418', '#213022', '#E6F2E3', '#B9CCB7',
                         '#86998A', '#2F4031', '#7DD3A0', '#F2C46D', '#FFB4AB', '#B8F0A8', '#FF8FB1', '#FFA066', '#F5C26B',
                         ['#1E2E20', '#2E4A31', '#477348', '#6EA56A']),
    },
    'sunset': {
        'light': _palette('#A8431A', '#FFFFFF', '#FFDCC8', '#4A1600', '#FFF8F3', '#FFFFFF', '#FBEDE4', '#2E1A12', '#62483C',
                          '#93705F', '#EBD8CD', '#2E7D4F', '#8A5A00', '#B3261E', '#C2185B', '#D6336C', '#B45309', '#A16207',
                          ['#FBEAE0', '#F6C8AE', '#E9997A', '#CC6A45']),
        'dark': _palette('#FFB08A', '#4A1A00', '#6E2E10', '#FFDCC8', '#1E120D', '#2A1A13', '#36241B', '#FBEDE6', '#D8BFB2',
                         '#A38A7E', '#46342B', '#7DD3A0', '#F2C46D', '#FFB4AB', '#FFB3D1', '#FF8FB1', '#FFA066', '#F5C26B',
                         ['#3A271E', '#5C3A2B', '#8A5640', '#C27C5C']),
    },
    # Black & White holds all text to AAA (THEME-9).
    'black-and-white': {
        'light': _palette('#000000', '#FFFFFF', '#E0E0E0', '#000000', '#FFFFFF', '#FFFFFF', '#F0F0F0', '#000000', '#3D3D3D',
                          '#595959', '#D9D9D9', '#1F1F1F', '#2E2E2E', '#3D3D3D', '#000000', '#2E2E2E', '#3D3D3D', '#4A4A4A',
                          ['#EEEEEE', '#C6C6C6', '#9A9A9A', '#6B6B6B']),
        'dark': _palette('#FFFFFF', '#000000', '#2A2A2A', '#FFFFFF', '#000000', '#000000', '#1A1A1A', '#FFFFFF', '#D0D0D0',
                         '#A6A6A6', '#333333', '#F0F0F0', '#E0E0E0', '#D0D0D0', '#FFFFFF', '#E0E0E0', '#D0D0D0', '#C0C0C0',
                         ['#1F1F1F', '#474747', '#7A7A7A', '#B0B0B0']),
    },
}
