// English and Spanish strings, card names for screen readers, and the language switch.
// Spanish game wording follows the official Spanish rules (seed 004).

const STRINGS = {
  en: {
    title: "Blink, the world's fastest game",
    tagline: "The world's fastest game",
    lobby: "Lobby",
    quick_game: "Quick game",
    quick_help: "Play a bot now.",
    bot_level: "Bot level",
    players: "Players",
    n_players: "{n} players",
    play: "Play",
    private_game: "Private game",
    private_help: "Invite a friend: you get a link and a short code.",
    seat: "Seat {n}",
    player_n: "Player {n}",
    you: "You",
    human: "Human",
    bot: "Bot",
    best_of: "Best of",
    handicap: "Handicap",
    handicap_help: "Extra cards for seat 1 (+5) or sizes (35:25)",
    ruleset: "Rules",
    rules_official: "Official",
    rules_dead_end: "Dead end: fewest cards wins",
    create: "Create game",
    list_public: "List it in live games (anyone may watch)",
    join: "Join a game",
    join_help: "Paste a link or type the code.",
    code: "Code",
    join_btn: "Join",
    live_games: "Live games",
    finished_games: "Finished games",
    watch: "Watch",
    replay: "Replay",
    download_record: "Download record",
    none_yet: "None right now.",
    how_to_play: "How to play",
    tournaments: "Tournaments",
    leaderboard: "Leaderboard",
    menu: "Menu",
    load_record: "Open a record file",
    name: "Your name",
    name_everywhere: "Used at every table you open or join.",
    share: "Share this link or code",
    copy: "Copy link",
    copied: "Copied!",
    waiting_players: "Waiting for players…",
    seat_here: "here",
    seat_away: "not connected",
    seat_open: "open seat",
    back_lobby: "Back to lobby",
    language: "Language",
    sound: "Sound",
    sound_on: "Sound on",
    sound_off: "Sound off",
    colorblind: "Colour letters",
    colorblind_short: "Letters",
    colorblind_tip: "Show each card's colour as a letter too",
    latency: "Latency {ms} ms",
    connecting: "Connecting…",
    reconnecting: "Connection lost, reconnecting…",
    lists_offline: "Live lists disconnected, reconnecting…",
    your_hand: "Your hand",
    hand: "hand",
    draw: "draw",
    cards_in_hand: "{n} in hand",
    cards_in_draw: "{n} to draw",
    pile: "Pile {n}",
    pile_left: "left pile",
    pile_right: "right pile",
    pile_out: "out of reach",
    pile_label: "{side}: {card}",
    empty_pile: "face down",
    key_hint: "Keys: 1 2 3 (or J K L) play a card; then ← → (or A D) pick the pile.",
    pick_pile: "Pick a pile for {card}: ← or →",
    get_ready: "Get ready",
    go: "Blink!",
    stall_flip: "No one can play: everyone flips a card.",
    stall_choose: "No one can play: choose a card to place ({s} s).",
    stall_choose_watch: "No one can play: each player chooses a card to place.",
    choose_card: "Choose",
    chosen_wait: "Chosen. Waiting for the others…",
    blink_win: "BLINK!",
    you_won: "You won!",
    x_won: "{name} won",
    tie: "A tie",
    you_lost: "You lost",
    game_time: "Time",
    plays: "Plays",
    n_plays: "{n} plays",
    avg_play: "Average per play",
    cards_left: "cards left",
    final_piles: "The centre piles at the end",
    your_plays: "Your plays",
    rematch: "Rematch",
    rematch_wait: "Waiting for the others to accept…",
    series_score: "Series",
    game_n: "Game {n}",
    series_won: "{name} wins the series",
    next_game: "Next game",
    spectating: "Watching",
    players_away: "The players have left: the game waits for them to come back.",
    refused: "Refused",
    // refusal reasons (engine codes)
    r_too_slow: "Too slow: the pile changed first",
    r_no_common_attribute: "No match: no shared colour, shape or count",
    r_pile_out_of_reach: "That pile is out of reach",
    r_card_not_in_hand: "That card is no longer in your hand",
    r_not_revealed: "Wait for the reveal",
    r_flip_awaited: "Stalled: wait for the flip",
    r_choice_awaited: "Stalled: choose a card",
    r_game_over: "The game is over",
    r_storage_unavailable: "The game is waiting: the server cannot save it right now",
    r_generic: "Refused",
    // replay
    replay_title: "Replay",
    step_back: "Step back",
    step_fwd: "Step forward",
    play_pause: "Play / pause",
    speed: "Speed",
    real_time: "real time",
    timeline: "Timeline",
    step_of: "Step {i} of {n}",
    a_reveal: "The centre cards are turned face up.",
    a_play: "{name} plays {card} on pile {pile}.",
    a_flip: "Stall: everyone flips a card.",
    a_choose: "{name} chooses {card}.",
    a_start: "Cards dealt.",
    a_end_win: "{name} wins ({reason}).",
    a_end_tie: "A tie ({reason}).",
    reason_out_of_cards: "out of cards",
    reason_stall_placement: "last card placed in a stall",
    reason_fewest_cards: "fewest cards left",
    a_placed: "The chosen cards are placed.",
    a_stall_flip: "No one can play.",
    a_stall_choose: "No one can play and a draw pile is empty: everyone chooses a card.",
    a_stall_dead_end: "No one can play and no draw pile is left.",
    go_asks: "Asks",
    go_matches: "Matches",
    go_draw_pile: "Draw pile: {n}",
    go_card_1: "1 card",
    go_cards_n: "{n} cards",
    go_to_act: "to act",
    go_ask: "{a} asks {b} for {v}.",
    go_passed: "{name} passes {n}.",
    go_blink: "Go Blink!",
    go_drew: "{name} draws a card.",
    go_emptied: "{name} has no cards left and draws one.",
    go_laid: "{name} lays down {n} cards ({v}).",
    go_skipped: "{name} has no cards: turn skipped.",
    go_end: "{name} ends the turn.",
    go_end_opening: "{name} ends the opening.",
    go_win: "{name} wins ({reason}).",
    go_tie: "A tie between {names} ({reason}).",
    go_log_passed: "{n} passed",
    go_log_drew: "drew",
    go_log_target_drew: "{name} drew",
    bad_record: "This file is not a Blink record.",
    bad_record_at: "This record does not replay: move {n} is not possible in the game.",
    bad_json: "This file is not a Blink record: it is not readable JSON.",
    record_too_large: "This file is too large to be a Blink record.",
    not_found: "There is no game with the code {code}. Check the code, or ask for a new link.",
    bad_code: "That is not a game code or link. Check it, or ask for a new link.",
    versus: "vs",
    error: "Error: {msg}",
    level_beginner: "Beginner",
    level_casual: "Casual",
    level_skilled: "Skilled",
    level_expert: "Expert",
    level_champion: "Champion",
    level_inhuman: "Inhuman",
    rules_html: `
<p>Be the first to play all your cards.</p>
<ol>
<li>Each player gets an equal draw pile. The top card of each draw pile goes face down in the centre; the next three are your hand.</li>
<li>The centre cards are turned over together and the race begins. No turns: play a card from your hand on a centre pile when it matches the top card in <strong>colour</strong>, <strong>shape</strong> or <strong>count</strong>. Four yellow stars go on anything yellow, any stars, or any four.</li>
<li>Your hand refills from your draw pile: up to three cards at a time. One card at a time.</li>
<li>If no one can play, everyone flips the top of their draw pile onto the centre. When a draw pile is empty, everyone instead chooses a hand card to place.</li>
<li>First one out of cards wins. Shout <strong>BLINK!</strong></li>
</ol>
<p>With three players the piles form a triangle: you reach the pile to your left and the one to your right.</p>
<h3>Keys</h3>
<p><kbd>1</kbd> <kbd>2</kbd> <kbd>3</kbd> (or <kbd>J</kbd> <kbd>K</kbd> <kbd>L</kbd>) play your first, second or third card. When it fits only one pile it goes there at once; otherwise pick the pile with <kbd>←</kbd> <kbd>→</kbd> (or <kbd>A</kbd> <kbd>D</kbd>). With a mouse: click a card then a pile, or drag it.</p>`,
  },
  es: {
    title: "Blink, el juego más rápido del mundo",
    tagline: "El juego más rápido del mundo",
    lobby: "Inicio",
    quick_game: "Partida rápida",
    quick_help: "Juega ya contra un bot.",
    bot_level: "Nivel del bot",
    players: "Jugadores",
    n_players: "{n} jugadores",
    play: "Jugar",
    private_game: "Partida privada",
    private_help: "Invita a un amigo: recibes un enlace y un código corto.",
    seat: "Puesto {n}",
    player_n: "Jugador {n}",
    you: "Tú",
    human: "Persona",
    bot: "Bot",
    best_of: "Al mejor de",
    handicap: "Nivelación",
    handicap_help: "Cartas de más para el puesto 1 (+5) o tamaños (35:25)",
    ruleset: "Reglas",
    rules_official: "Oficiales",
    rules_dead_end: "Sin salida: gana quien tenga menos cartas",
    create: "Crear partida",
    list_public: "Mostrarla en partidas en juego (cualquiera puede mirar)",
    join: "Unirse a una partida",
    join_help: "Pega un enlace o escribe el código.",
    code: "Código",
    join_btn: "Unirse",
    live_games: "Partidas en juego",
    finished_games: "Partidas terminadas",
    watch: "Mirar",
    replay: "Repetición",
    download_record: "Descargar partida",
    none_yet: "Ninguna por ahora.",
    how_to_play: "Cómo se juega",
    tournaments: "Torneos",
    leaderboard: "Clasificación",
    menu: "Menú",
    load_record: "Abrir un archivo de partida",
    name: "Tu nombre",
    name_everywhere: "Se usa en cada mesa que abras o a la que te unas.",
    share: "Comparte este enlace o código",
    copy: "Copiar enlace",
    copied: "¡Copiado!",
    waiting_players: "Esperando jugadores…",
    seat_here: "conectado",
    seat_away: "sin conexión",
    seat_open: "puesto libre",
    back_lobby: "Volver al inicio",
    language: "Idioma",
    sound: "Sonido",
    sound_on: "Sonido activado",
    sound_off: "Sonido desactivado",
    colorblind: "Letras de color",
    colorblind_short: "Letras",
    colorblind_tip: "Mostrar también el color de cada carta con una letra",
    latency: "Latencia {ms} ms",
    connecting: "Conectando…",
    reconnecting: "Conexión perdida, reconectando…",
    lists_offline: "Listas en vivo desconectadas, reconectando…",
    your_hand: "Tu mano",
    hand: "mano",
    draw: "mazo",
    cards_in_hand: "{n} en la mano",
    cards_in_draw: "{n} en el mazo",
    pile: "Montón {n}",
    pile_left: "montón izquierdo",
    pile_right: "montón derecho",
    pile_out: "fuera de alcance",
    pile_label: "{side}: {card}",
    empty_pile: "boca abajo",
    key_hint: "Teclas: 1 2 3 (o J K L) juegan una carta; luego ← → (o A D) eligen el montón.",
    pick_pile: "Elige un montón para {card}: ← o →",
    get_ready: "Preparados",
    go: "¡Blink!",
    stall_flip: "Nadie puede jugar: cada jugador da vuelta una carta.",
    stall_choose: "Nadie puede jugar: escoge una carta de tu mano ({s} s).",
    stall_choose_watch: "Nadie puede jugar: cada jugador escoge una carta de su mano.",
    choose_card: "Escoger",
    chosen_wait: "Escogida. Esperando a los demás…",
    blink_win: "¡BLINK!",
    you_won: "¡Ganaste!",
    x_won: "Ganó {name}",
    tie: "Empate",
    you_lost: "Perdiste",
    game_time: "Tiempo",
    plays: "Jugadas",
    n_plays: "{n} jugadas",
    avg_play: "Promedio por jugada",
    cards_left: "cartas restantes",
    final_piles: "Los montones del centro al final",
    your_plays: "Tus jugadas",
    rematch: "Revancha",
    rematch_wait: "Esperando que los demás acepten…",
    series_score: "Serie",
    game_n: "Partida {n}",
    series_won: "{name} gana la serie",
    next_game: "Siguiente partida",
    spectating: "Mirando",
    players_away: "Los jugadores se han ido: la partida los espera.",
    refused: "Rechazada",
    r_too_slow: "Demasiado lento: el montón cambió antes",
    r_no_common_attribute: "No coincide: ni color, ni forma, ni cantidad",
    r_pile_out_of_reach: "Ese montón está fuera de tu alcance",
    r_card_not_in_hand: "Esa carta ya no está en tu mano",
    r_not_revealed: "Espera a que se den vuelta las cartas",
    r_flip_awaited: "Juego detenido: espera la vuelta",
    r_choice_awaited: "Juego detenido: escoge una carta",
    r_game_over: "La partida terminó",
    r_storage_unavailable: "La partida espera: el servidor no puede guardarla ahora",
    r_generic: "Rechazada",
    replay_title: "Repetición",
    step_back: "Paso atrás",
    step_fwd: "Paso adelante",
    play_pause: "Reproducir / pausa",
    speed: "Velocidad",
    real_time: "tiempo real",
    timeline: "Línea de tiempo",
    step_of: "Paso {i} de {n}",
    a_reveal: "Se dan vuelta las cartas del centro.",
    a_play: "{name} juega {card} en el montón {pile}.",
    a_flip: "Juego detenido: cada jugador da vuelta una carta.",
    a_choose: "{name} escoge {card}.",
    a_start: "Cartas repartidas.",
    a_end_win: "Gana {name} ({reason}).",
    a_end_tie: "Empate ({reason}).",
    reason_out_of_cards: "sin cartas",
    reason_stall_placement: "última carta colocada en un bloqueo",
    reason_fewest_cards: "menos cartas restantes",
    a_placed: "Se colocan las cartas escogidas.",
    a_stall_flip: "Nadie puede jugar.",
    a_stall_choose: "Nadie puede jugar y un mazo se acabó: cada jugador escoge una carta.",
    a_stall_dead_end: "Nadie puede jugar y a nadie le queda mazo.",
    go_asks: "Pedidos",
    go_matches: "Combinaciones",
    go_draw_pile: "Mazo: {n}",
    go_card_1: "1 carta",
    go_cards_n: "{n} cartas",
    go_to_act: "le toca",
    go_ask: "{a} pide {v} a {b}.",
    go_passed: "{name} pasa {n}.",
    go_blink: "¡Go Blink!",
    go_drew: "{name} roba una carta.",
    go_emptied: "{name} se quedó sin cartas y roba una.",
    go_laid: "{name} baja {n} cartas ({v}).",
    go_skipped: "{name} no tiene cartas: pierde el turno.",
    go_end: "{name} termina el turno.",
    go_end_opening: "{name} termina la apertura.",
    go_win: "Gana {name} ({reason}).",
    go_tie: "Empate entre {names} ({reason}).",
    go_log_passed: "{n} pasadas",
    go_log_drew: "robó",
    go_log_target_drew: "{name} robó",
    bad_record: "Este archivo no es una partida de Blink.",
    bad_record_at: "Esta partida no se puede repetir: la jugada {n} no es posible en el juego.",
    bad_json: "Este archivo no es una partida de Blink: no es JSON legible.",
    record_too_large: "Este archivo es demasiado grande para ser una partida de Blink.",
    not_found: "No hay ninguna partida con el código {code}. Revisa el código o pide un enlace nuevo.",
    bad_code: "Eso no es un código ni un enlace de partida. Revísalo o pide un enlace nuevo.",
    versus: "contra",
    error: "Error: {msg}",
    level_beginner: "Principiante",
    level_casual: "Aficionado",
    level_skilled: "Hábil",
    level_expert: "Experto",
    level_champion: "Campeón",
    level_inhuman: "Inhumano",
    rules_html: `
<p>Objetivo: ser el primero en quedar sin cartas.</p>
<ol>
<li>Se reparten las cartas en mazos iguales, uno por jugador. La primera carta de cada mazo se coloca boca abajo en el centro y forma un montón; las tres siguientes forman tu mano.</li>
<li>Los jugadores dan vuelta simultáneamente las cartas del centro y el juego comienza. Sin tomar turnos, juega una carta de tu mano sobre un montón del centro si coincide en al menos una característica: <strong>color</strong>, <strong>forma</strong> o <strong>cantidad de símbolos</strong>. Cuatro estrellas amarillas van sobre cualquier carta amarilla, cualquier estrella o cualquier carta con cuatro símbolos.</li>
<li>A medida que juegas, robas cartas de tu mazo: hasta tres cartas en la mano. No se puede jugar más de una carta a la vez.</li>
<li>Si nadie puede jugar, cada jugador da vuelta la primera carta de su mazo sobre un montón del centro. Si a alguien se le acabó su mazo, cada uno escoge una carta de su mano y se colocan simultáneamente.</li>
<li>El primero que quede completamente sin cartas gana el <strong>¡BLINK!</strong></li>
</ol>
<p>Con tres jugadores, los montones del centro forman un triángulo: juegas en el montón a tu izquierda o a tu derecha.</p>
<h3>Teclas</h3>
<p><kbd>1</kbd> <kbd>2</kbd> <kbd>3</kbd> (o <kbd>J</kbd> <kbd>K</kbd> <kbd>L</kbd>) juegan tu primera, segunda o tercera carta. Si solo cabe en un montón, va allí enseguida; si no, elige el montón con <kbd>←</kbd> <kbd>→</kbd> (o <kbd>A</kbd> <kbd>D</kbd>). Con el ratón: haz clic en una carta y luego en un montón, o arrástrala.</p>`,
  },
};

const CARD_WORDS = {
  en: {
    counts: ["", "one", "two", "three", "four", "five"],
    colors: { red: "red", orange: "orange", yellow: "yellow", green: "green", blue: "blue", purple: "purple" },
    shapes: {
      moon: ["moon", "moons"], pyramid: ["pyramid", "pyramids"], star: ["star", "stars"],
      water: ["water", "waters"], flower: ["flower", "flowers"], lightning: ["lightning", "lightnings"],
    },
    letters: { red: "R", orange: "O", yellow: "Y", green: "G", blue: "B", purple: "P" },
  },
  es: {
    // Gender per shape: f or m. "Agua" takes "un" in the singular (un agua azul).
    shapes: {
      moon: ["luna", "lunas", "f"], pyramid: ["pirámide", "pirámides", "f"], star: ["estrella", "estrellas", "f"],
      water: ["agua", "aguas", "f"], flower: ["flor", "flores", "f"], lightning: ["rayo", "rayos", "m"],
    },
    colors: {
      red: ["rojo", "roja", "rojos", "rojas"], orange: ["naranja", "naranja", "naranjas", "naranjas"],
      yellow: ["amarillo", "amarilla", "amarillos", "amarillas"], green: ["verde", "verde", "verdes", "verdes"],
      blue: ["azul", "azul", "azules", "azules"], purple: ["morado", "morada", "morados", "moradas"],
    },
    counts: ["", "una", "dos", "tres", "cuatro", "cinco"],
    letters: { red: "R", orange: "N", yellow: "A", green: "V", blue: "Z", purple: "M" },
  },
};

export const LANGS = ["en", "es"];
let lang = pickLanguage();
const listeners = new Set();

function pickLanguage() {
  try {
    const saved = localStorage.getItem("blink.lang");
    if (LANGS.includes(saved)) return saved;
  } catch { /* storage may be blocked */ }
  const nav = (navigator.languages && navigator.languages[0]) || navigator.language || "en";
  return nav.toLowerCase().startsWith("es") ? "es" : "en";
}

export function getLang() {
  return lang;
}

export function setLang(next) {
  if (!LANGS.includes(next) || next === lang) return;
  lang = next;
  try { localStorage.setItem("blink.lang", next); } catch { /* ignore */ }
  document.documentElement.lang = lang;
  applyI18n(document);
  for (const fn of listeners) fn(lang);
}

export function onLangChange(fn) {
  listeners.add(fn);
}

/** Translate `key`, filling {placeholders} from `vars`. */
export function t(key, vars = {}) {
  const s = STRINGS[lang][key] ?? STRINGS.en[key] ?? key;
  return s.replace(/\{(\w+)\}/g, (_, k) => (k in vars ? String(vars[k]) : `{${k}}`));
}

/** Fill every [data-i18n] text, [data-i18n-label] aria-label and [data-i18n-title] title. */
export function applyI18n(root) {
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll("[data-i18n-html]")) el.innerHTML = t(el.dataset.i18nHtml);
  for (const el of root.querySelectorAll("[data-i18n-label]")) el.setAttribute("aria-label", t(el.dataset.i18nLabel));
  for (const el of root.querySelectorAll("[data-i18n-title]")) el.title = t(el.dataset.i18nTitle);
  for (const el of root.querySelectorAll("[data-i18n-placeholder]")) el.placeholder = t(el.dataset.i18nPlaceholder);
}

/** "four yellow stars" / "cuatro estrellas amarillas" for a card code. */
export function cardName(code) {
  const count = Number(code[0]);
  const color = { R: "red", O: "orange", Y: "yellow", G: "green", B: "blue", P: "purple" }[code[1]];
  const shape = { M: "moon", P: "pyramid", S: "star", W: "water", F: "flower", L: "lightning" }[code[2]];
  const plural = count !== 1;
  if (lang === "es") {
    const w = CARD_WORDS.es;
    const [sing, plur, gender] = w.shapes[shape];
    const forms = w.colors[color];
    const adj = forms[(plural ? 2 : 0) + (gender === "f" ? 1 : 0)];
    let num = w.counts[count];
    if (count === 1 && (gender === "m" || shape === "water")) num = "un";
    return `${num} ${plural ? plur : sing} ${adj}`;
  }
  const w = CARD_WORDS.en;
  return `${w.counts[count]} ${w.colors[color]} ${w.shapes[shape][plural ? 1 : 0]}`;
}

/** The colour letter shown in colour-blind mode. */
export function colorLetter(code) {
  const color = { R: "red", O: "orange", Y: "yellow", G: "green", B: "blue", P: "purple" }[code[1]];
  return CARD_WORDS[lang].letters[color];
}
