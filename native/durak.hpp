// The native Durak engine: the rules of durak_env/engine/game.py in C++, move for move.
//
// The Python engine (durak_env/engine) is the reference: it states each rule once, with the sentence of the
// seed it comes from.  This file plays the same deals faster and is checked against it at every decision
// (tests/test_native.py, benchmarks/differential.py): the same cards dealt for the same seed (Python's
// Mersenne Twister and its shuffle, reproduced below), the same legal moves in the same order, the same
// refusal codes, results, rewards and observation bytes.  Each function names the Python method it mirrors;
// read that one for the rule and its seed.
//
// Cards are ids 0..51 (suit * 13 + rank), sets of cards are 64-bit masks, actions are indices of the deck's
// flat layout (durak_env/engine/actions.py).  Nothing here allocates after a game is made.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>

namespace durak {

constexpr int MAX_PLAYERS = 6;
constexpr int MAX_TABLE = 32;  // attack cards in one bout: the cap is at most 26
constexpr int MAX_ACTIONS = 3 * 52 + 2;
constexpr int NUM_RANKS = 13;

using Mask = uint64_t;

// Bits set, inline on every machine (``__builtin_popcountll`` is a library call where the build may not assume
// the popcnt instruction).
inline int popcount(Mask m) {
    m -= m >> 1 & 0x5555555555555555ULL;
    m = (m & 0x3333333333333333ULL) + (m >> 2 & 0x3333333333333333ULL);
    m = (m + (m >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
    return static_cast<int>(m * 0x0101010101010101ULL >> 56);
}
inline int lowest(Mask m) { return __builtin_ctzll(m); }

// ----- rules (engine/rules.py: Rules) ---------------------------------------------------------------------
enum ThrowIn : int8_t { THROW_ATTACKER = 0, THROW_NEIGHBOURS = 1, THROW_ALL = 2 };           // rules.THROW_IN
enum NoTrumpLead : int8_t { LEAD_FIRST_SEAT = 0, LEAD_REDEAL = 1, LEAD_AFTER_DEALER = 2, LEAD_SEAT_ZERO = 3 };

struct Rules {
    int num_players = 2;
    int deck_size = 36;
    int deal_size = 6;                 // Rules.deal_size: hand_size, or full_table_hand_size at six seats
    int throw_in = THROW_ALL;
    bool before_beaten = true;         // throw_in_before_beaten
    bool transfer = false;
    int max_attacks = 6;
    int max_attacks_early = 6;
    bool early_first_discard = true;   // early_ends == "first_discard" (else "first_bout")
    bool bout_start = false;           // defender_limit == "bout_start" (else "current_hand")
    bool after_take = false;           // throw_in_after_take
    int no_trump_lead = LEAD_SEAT_ZERO;
    bool open_discard = true;
    int max_bouts = -1;                // -1: no cap

    // What Rules.__post_init__ refuses (the reference says why; these are already its values).
    bool valid() const {
        return num_players >= 2 && num_players <= MAX_PLAYERS && (deck_size == 24 || deck_size == 36 ||
               deck_size == 52) && deal_size >= 1 && deal_size * num_players < deck_size && throw_in >= 0 &&
               throw_in <= 2 && max_attacks >= 1 && max_attacks <= 26 && max_attacks_early >= 1 &&
               max_attacks_early <= max_attacks && no_trump_lead >= 0 && no_trump_lead <= 3 &&
               (max_bouts == -1 || max_bouts >= 1);
    }

    // Rules.attack_cap
    int attack_cap(int discard_count, int bouts) const {
        bool early = early_first_discard ? discard_count == 0 : bouts == 0;
        return early ? max_attacks_early : max_attacks;
    }
};

// ----- cards and the action layout (engine/cards.py, engine/actions.py) ----------------------------------
inline int suit_of(int card) { return card / NUM_RANKS; }
inline int rank_of(int card) { return card % NUM_RANKS; }
inline int lowest_rank(int deck_size) { return deck_size == 52 ? 0 : deck_size == 36 ? 4 : 7; }  // LOWEST_RANK

struct Tables {
    Mask suit_mask[4];
    Mask rank_mask_of[52];      // RANK_MASK_OF
    Mask beaters[4][52];        // BEATERS[trump][card]
    // NEXT_IN[players][out mask][seat]: the next seat clockwise that has not gone out (the seat itself if all are).
    int8_t next_in[MAX_PLAYERS + 1][1 << MAX_PLAYERS][MAX_PLAYERS];

    Tables() {
        for (int s = 0; s < 4; ++s) suit_mask[s] = ((Mask(1) << NUM_RANKS) - 1) << (s * NUM_RANKS);
        for (int c = 0; c < 52; ++c) {
            Mask m = 0;
            for (int s = 0; s < 4; ++s) m |= Mask(1) << (s * NUM_RANKS + rank_of(c));
            rank_mask_of[c] = m;
        }
        for (int t = 0; t < 4; ++t)
            for (int c = 0; c < 52; ++c) {  // cards.beater_mask
                int suit = suit_of(c);
                Mask higher = suit_mask[suit] & ~((Mask(2) << c) - 1);
                beaters[t][c] = suit == t ? higher : higher | suit_mask[t];
            }
        std::memset(next_in, 0, sizeof next_in);
        for (int n = 1; n <= MAX_PLAYERS; ++n)
            for (int out = 0; out < (1 << n); ++out)
                for (int seat = 0; seat < n; ++seat) {
                    int found = seat;
                    for (int i = 1; i <= n; ++i) {
                        int s = (seat + i) % n;
                        if (!(out >> s & 1)) { found = s; break; }
                    }
                    next_in[n][out][seat] = static_cast<int8_t>(found);
                }
    }
};

inline const Tables& tables() {
    static const Tables t;
    return t;
}

// The deck's flat action layout (actions.Layout): attack 0.., defend D.., transfer 2D.., take 3D, done 3D + 1.
struct Layout {
    int deck = 36, low = 4, width = 9;  // width: ranks per suit in this deck
    int defend() const { return deck; }
    int transfer() const { return 2 * deck; }
    int take() const { return 3 * deck; }
    int done() const { return 3 * deck + 1; }
    int size() const { return 3 * deck + 2; }
    int card_of(int slot) const { return (slot / width) * NUM_RANKS + low + slot % width; }
    int slot_of(int card) const { return rank_of(card) < low ? -1 : suit_of(card) * width + rank_of(card) - low; }
    static Layout of(int deck_size) {
        Layout l;
        l.deck = deck_size;
        l.low = lowest_rank(deck_size);
        l.width = NUM_RANKS - l.low;
        return l;
    }
};

// ----- Python's random.Random: MT19937, seeded and drawn as CPython's _randommodule.c does ----------------
struct PyRandom {
    uint32_t mt[624];
    int index = 624;

    // init_genrand(19650218), where every integer seed starts: computed once.
    struct Start {
        uint32_t mt[624];
        Start() {
            mt[0] = 19650218u;
            for (int i = 1; i < 624; ++i) mt[i] = 1812433253u * (mt[i - 1] ^ (mt[i - 1] >> 30)) + static_cast<uint32_t>(i);
        }
    };
    // random.Random(n) for an int n: init_by_array over |n|'s 32-bit words, least significant first ([0] for 0).
    void seed_words(const uint32_t* key, int length) {
        static const Start start;
        std::memcpy(mt, start.mt, sizeof mt);
        int i = 1, j = 0;
        for (int k = length > 624 ? length : 624; k; --k) {
            mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1664525u)) + key[j] + static_cast<uint32_t>(j);
            ++i, ++j;
            if (i >= 624) { mt[0] = mt[623]; i = 1; }
            if (j >= length) j = 0;
        }
        for (int k = 623; k; --k) {
            mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1566083941u)) - static_cast<uint32_t>(i);
            ++i;
            if (i >= 624) { mt[0] = mt[623]; i = 1; }
        }
        mt[0] = 0x80000000u;
        index = 624;
    }
    void seed(uint64_t n) {  // |n| below 2**64
        uint32_t key[2] = {static_cast<uint32_t>(n), static_cast<uint32_t>(n >> 32)};
        seed_words(key, key[1] ? 2 : 1);
    }
    // genrand_uint32, with the state's regeneration done a word at a time as the words are drawn: word k of
    // a generation reads the old words k + 1 and k + 397 (or the new word k - 227), so drawing them in order
    // gives the same words as regenerating all 624 at once, and a deal that draws forty pays for forty.
    uint32_t next32() {
        if (index >= 624) index = 0;
        const int k = index;
        uint32_t y = (mt[k] & 0x80000000u) | (mt[k == 623 ? 0 : k + 1] & 0x7fffffffu);
        mt[k] = mt[k < 227 ? k + 397 : k - 227] ^ (y >> 1) ^ (y & 1u ? 0x9908b0dfu : 0u);
        y = mt[index++];
        y ^= (y >> 11);
        y ^= (y << 7) & 0x9d2c5680u;
        y ^= (y << 15) & 0xefc60000u;
        y ^= (y >> 18);
        return y;
    }
    uint32_t getrandbits(int k) { return next32() >> (32 - k); }  // 1 <= k <= 32
    uint64_t getrandbits64() {
        uint64_t low = next32();
        return low | static_cast<uint64_t>(next32()) << 32;
    }
};

// engine/game.py: shuffle (the standard library's shuffle, draw for draw)
inline void shuffle(PyRandom& rng, int8_t* cards, int length) {
    for (int i = length - 1; i > 0; --i) {
        uint32_t below = static_cast<uint32_t>(i + 1);
        int bits = 32 - __builtin_clz(below);
        uint32_t j = rng.getrandbits(bits);
        while (j >= below) j = rng.getrandbits(bits);
        int8_t t = cards[i];
        cards[i] = cards[j];
        cards[j] = t;
    }
}

// ----- refusal codes (engine/refusal.py: Refusal, in its order) -------------------------------------------
enum Refusal : int {
    LEGAL = -1, GAME_OVER = 0, NOT_YOUR_TURN, NOT_AN_ACTION, NOT_DEFENDING, DEFENDING, FIRST_CARD, NOT_HELD,
    WRONG_RANK, NO_TRANSFER, CANNOT_BEAT, NOT_LEGAL
};

// What stops a transfer (legality.no_transfer), 0 when none does.
enum NoTransfer : int { TRANSFER_OK = 0, NO_TRANSFER_RULE, NO_TRANSFER_BEATEN, NO_TRANSFER_CAP,
                        NO_TRANSFER_HAND };

struct Result {
    int8_t placings[MAX_PLAYERS];
    int8_t points[MAX_PLAYERS];
    int8_t fool;          // -1: a draw
    Mask drawn;           // seats in the final tie of a drawn deal
    int8_t drawn_seats[MAX_PLAYERS];
    int8_t drawn_count;
    bool capped;
    // Result.rewards
    double reward(int seat, int n) const {
        return drawn >> seat & 1 ? 0.0 : 2.0 * points[seat] / (n - 1) - 1.0;
    }
    // staked: with ``fool_stake`` the fool -1, every other seat +1/(n-1), all 0 in a draw; else ``reward``.
    double reward(int seat, int n, bool fool_stake) const {
        if (!fool_stake) return reward(seat, n);
        return fool < 0 ? 0.0 : seat == fool ? -1.0 : 1.0 / (n - 1);
    }
};

struct BoutEnd {  // view.BoutEnd
    int bouts = 0, defender = 0;
    bool took = false;
    Mask table = 0;
    int8_t drew[MAX_PLAYERS] = {0, 0, 0, 0, 0, 0};
};

// ----- one deal (engine/game.py: Game) --------------------------------------------------------------------
struct Game {
    Rules rules;
    Layout lay;
    // The stored facts (engine/snapshot.py: FACTS).
    int8_t trump_card = 0;
    int8_t stock[52];
    int stock_len = 0;            // stock[stock_len - 1] is drawn next
    Mask hands[MAX_PLAYERS] = {};
    Mask discard = 0;
    Mask known[MAX_PLAYERS] = {};
    int8_t out_seats[MAX_PLAYERS];  // the seats out, group after group
    int8_t group_end[MAX_PLAYERS];  // out_seats[group_end[g - 1] .. group_end[g]) is group g
    int groups = 0, out_count = 0;
    int8_t attacks[MAX_TABLE];
    int8_t defences[MAX_TABLE];   // -1 where unbeaten
    int na = 0;
    int attacker = 0, defender = 1, opener = 0;
    int passed = 0;
    bool taking = false;
    int bouts = 0;
    int first_seat = 0;
    // Derived (Game._derive).
    int n = 2, trump = 0, out_mask = 0, open_count = 0;
    Mask table_ranks = 0;
    int cap = 0, limit = 0;
    int8_t throwers[MAX_PLAYERS];
    int nthrowers = 0;
    int to_act = 0;
    bool over = false;
    Result result;
    BoutEnd last_bout;
    bool has_last_bout = false;
    // The legal moves of the position, computed once (Game._legal).
    int16_t legal[MAX_ACTIONS];
    int nlegal = -1;

    int next(int seat) const { return tables().next_in[n][out_mask][seat]; }

    // Game.__init__: shuffle and deal from random.Random(seed), dealing again while the rules redeal.
    void deal_seeded(const Rules& r, PyRandom& rng, int first) {
        int8_t cards[52];
        while (true) {
            int k = 0;
            for (int s = 0; s < 4; ++s)
                for (int rank = lowest_rank(r.deck_size); rank < NUM_RANKS; ++rank) cards[k++] = s * NUM_RANKS + rank;
            shuffle(rng, cards, k);
            if (deal(r, cards, k, first)) return;
        }
    }

    // Game._deal
    bool deal(const Rules& r, const int8_t* cards, int length, int first) {
        rules = r;
        lay = Layout::of(r.deck_size);
        n = r.num_players;
        std::memcpy(stock, cards, length);
        stock_len = length;
        trump_card = cards[0];
        for (int s = 0; s < MAX_PLAYERS; ++s) hands[s] = known[s] = 0;
        for (int k = 0; k < r.deal_size; ++k)
            for (int i = 0; i < n; ++i) hands[(first + i) % n] |= Mask(1) << stock[--stock_len];
        discard = 0;
        passed = bouts = 0;
        groups = out_count = 0;
        na = 0;
        first_seat = first;
        taking = false;
        has_last_bout = false;
        int leader = lowest_trump_holder();
        if (leader < 0) {
            if (r.no_trump_lead == LEAD_REDEAL) return false;
            leader = r.no_trump_lead == LEAD_SEAT_ZERO ? 0 : first;
        }
        attacker = opener = leader;
        defender = tables().next_in[n][0][leader];
        derive();
        return true;
    }

    // Game.assemble, for facts that put each card of the deck in one place (snapshot.py checks that, and says
    // what is wrong, before the reference engine assembles them).  What could take this engine out of its
    // arrays is refused here too, so that no facts at all can: returns false (the game unusable) for a seat,
    // a card or a count out of range, a seat out twice, or a position between bouts.
    bool assemble(const Rules& r, int trump, const int8_t* stock_cards, int stock_count, const Mask* hand_masks,
                  Mask discarded, const Mask* known_masks, const int8_t* out, const int8_t* ends, int ngroups,
                  const int8_t* attack_cards, const int8_t* defence_cards, int count, int att, int def, int open,
                  int passed_mask, bool is_taking, int bout_count, int first) {
        rules = r;
        n = r.num_players;
        if (!r.valid()) return false;
        Mask deck = 0;
        for (int s = 0; s < 4; ++s)
            for (int rank = lowest_rank(r.deck_size); rank < NUM_RANKS; ++rank) deck |= Mask(1) << (s * NUM_RANKS + rank);
        auto seat_ok = [&](int s) { return s >= 0 && s < n; };
        auto card_ok = [&](int c) { return c >= 0 && c < 52 && (deck >> c & 1); };
        if (!card_ok(trump) || stock_count < 0 || stock_count > 52 || count < 0 || count > MAX_TABLE ||
            !seat_ok(att) || !seat_ok(def) || !seat_ok(open) || !seat_ok(first) || passed_mask < 0 ||
            passed_mask >= (1 << n) || bout_count < 0 || (discarded & ~deck))
            return false;
        trump_card = static_cast<int8_t>(trump);
        stock_len = stock_count;
        for (int i = 0; i < stock_count; ++i) {
            if (!card_ok(stock_cards[i])) return false;
            stock[i] = stock_cards[i];
        }
        for (int s = 0; s < MAX_PLAYERS; ++s) hands[s] = known[s] = 0;
        for (int s = 0; s < n; ++s) {
            if ((hand_masks[s] | known_masks[s]) & ~deck) return false;
            hands[s] = hand_masks[s], known[s] = known_masks[s];
        }
        discard = discarded;
        int seen = 0;
        groups = out_count = 0;
        for (int g = 0; g < ngroups; ++g) {
            int start = g ? ends[g - 1] : 0;
            if (g >= MAX_PLAYERS || ends[g] <= start || ends[g] > MAX_PLAYERS) return false;
            for (int i = start; i < ends[g]; ++i) {
                if (!seat_ok(out[i]) || (seen >> out[i] & 1)) return false;
                seen |= 1 << out[i];
                out_seats[out_count++] = out[i];
            }
            group_end[groups++] = ends[g];
        }
        na = count;
        for (int i = 0; i < count; ++i) {
            if (!card_ok(attack_cards[i]) || !(defence_cards[i] == -1 || card_ok(defence_cards[i]))) return false;
            attacks[i] = attack_cards[i];
            defences[i] = defence_cards[i];
        }
        attacker = att, defender = def, opener = open;
        passed = passed_mask, taking = is_taking, bouts = bout_count, first_seat = first;
        has_last_bout = false;
        return derive();
    }

    // Game._lowest_trump_holder, -1 for none
    int lowest_trump_holder() const {
        int best = 99, best_seat = -1;
        Mask suit = tables().suit_mask[suit_of(trump_card)];
        for (int seat = 0; seat < n; ++seat) {
            Mask trumps = hands[seat] & suit;
            if (trumps && lowest(trumps) < best) best = lowest(trumps), best_seat = seat;
        }
        return best_seat;
    }

    // Game._derive; false where the position waits on nobody (between bouts).
    bool derive() {
        lay = Layout::of(rules.deck_size);
        n = rules.num_players;
        trump = suit_of(trump_card);
        out_mask = 0;
        for (int i = 0; i < out_count; ++i) out_mask |= 1 << out_seats[i];
        open_count = 0;
        table_ranks = 0;
        const Tables& t = tables();
        for (int i = 0; i < na; ++i) {
            table_ranks |= t.rank_mask_of[attacks[i]];
            if (defences[i] < 0) ++open_count;
            else table_ranks |= t.rank_mask_of[defences[i]];
        }
        nlegal = -1;
        over = false;
        int remaining = n - popcount(static_cast<Mask>(out_mask));
        if (remaining <= 1) {
            finish(false);
        } else if (rules.max_bouts >= 0 && bouts >= rules.max_bouts) {
            finish(true);
        } else {
            derive_bout();
            int actor = find_actor();
            if (actor < 0) return false;
            to_act = actor;
        }
        return true;
    }

    // Game._derive_bout
    void derive_bout() {
        cap = rules.attack_cap(popcount(discard), bouts);
        limit = popcount(hands[defender]) + na - open_count;
        compute_throwers();
    }

    // Game._compute_throwers
    void compute_throwers() {
        int a = attacker, d = defender;
        throwers[0] = static_cast<int8_t>(a);
        nthrowers = 1;
        if (rules.throw_in == THROW_ATTACKER) return;
        if (rules.throw_in == THROW_NEIGHBOURS) {
            int other = next(d);
            if (other != a) throwers[nthrowers++] = static_cast<int8_t>(other);
            return;
        }
        for (int s = next(d); s != a && nthrowers < MAX_PLAYERS; s = next(s)) throwers[nthrowers++] = static_cast<int8_t>(s);
    }

    // Game._has_room
    bool has_room() const {
        if (na >= cap) return false;
        if (rules.bout_start) return na < limit;
        return open_count < popcount(hands[defender]);
    }

    // Game._find_actor, -1 for none
    int find_actor() const {
        if (!na) return attacker;
        if (open_count && !taking && !rules.before_beaten) return defender;
        if (has_room())
            for (int i = 0; i < nthrowers; ++i) {
                int seat = throwers[i];
                if (!(passed >> seat & 1) && hands[seat]) return seat;
            }
        if (open_count && !taking) return defender;
        return -1;
    }

    // legality.no_transfer
    int no_transfer() const {
        if (!rules.transfer) return NO_TRANSFER_RULE;
        if (open_count != na) return NO_TRANSFER_BEATEN;
        if (na + 1 > cap) return NO_TRANSFER_CAP;
        if (popcount(hands[next(defender)]) < na + 1) return NO_TRANSFER_HAND;
        return TRANSFER_OK;
    }

    bool defending(int seat) const { return seat == defender && open_count > 0 && !taking; }

    int room() const { int r = cap - na; return r > 0 ? r : 0; }

    Mask table_mask() const {
        Mask m = 0;
        for (int i = 0; i < na; ++i) {
            m |= Mask(1) << attacks[i];
            if (defences[i] >= 0) m |= Mask(1) << defences[i];
        }
        return m;
    }

    void add_actions(int offset, Mask cards) {
        while (cards) {
            int c = lowest(cards);
            cards &= cards - 1;
            legal[nlegal++] = static_cast<int16_t>(offset + lay.slot_of(c));
        }
    }

    // Game.legal_actions: the legal action indices, lowest card first, computed once per position.
    int legal_actions() {
        if (nlegal >= 0) return nlegal;
        nlegal = 0;
        if (over) return 0;
        const Tables& t = tables();
        int seat = to_act;
        Mask hand = hands[seat];
        if (defending(seat)) {
            int target = attacks[na - open_count];
            add_actions(lay.defend(), hand & t.beaters[trump][target]);
            if (no_transfer() == TRANSFER_OK) add_actions(lay.transfer(), hand & t.rank_mask_of[attacks[0]]);
            legal[nlegal++] = static_cast<int16_t>(lay.take());
        } else if (!na) {
            add_actions(0, hand);
        } else {
            add_actions(0, hand & table_ranks);
            legal[nlegal++] = static_cast<int16_t>(lay.done());
        }
        return nlegal;
    }

    bool is_legal(int64_t action) {
        int count = legal_actions();
        for (int i = 0; i < count; ++i)
            if (legal[i] == action) return true;
        return false;
    }

    // Game._play: an action known to be legal.
    void play(int action) {
        int seat = to_act;
        nlegal = -1;
        if (action == lay.done()) {
            passed |= 1 << seat;
        } else if (action == lay.take()) {
            if (rules.after_take) {
                taking = true;
                passed = 0;
            } else {
                end_bout(true);
            }
        } else {
            int card = lay.card_of(action % lay.deck);
            Mask bit = Mask(1) << card;
            hands[seat] &= ~bit;
            known[seat] &= ~bit;
            table_ranks |= tables().rank_mask_of[card];
            if (action >= lay.defend() && action < lay.transfer()) {
                defences[na - open_count] = static_cast<int8_t>(card);
                if (!--open_count) passed = 0;
            } else {
                attacks[na] = static_cast<int8_t>(card);
                defences[na++] = -1;
                ++open_count;
                passed = 0;
                if (action >= lay.transfer()) {
                    attacker = seat;
                    defender = next(seat);
                    derive_bout();
                }
            }
        }
        advance();
    }

    // Game.play_forced: every move that is the only legal one, at most ``cap_moves``; returns how many.
    int play_forced(int cap_moves) {
        int played = 0;
        while (!over && played < cap_moves) {
            if (legal_actions() != 1) break;
            play(legal[0]);
            ++played;
        }
        return played;
    }

    // Game._advance
    void advance() {
        while (!over) {
            int actor = find_actor();
            if (actor >= 0) { to_act = actor; return; }
            end_bout(taking);
        }
    }

    // Game._open_bout
    void open_bout(int seat) {
        attacker = opener = seat;
        defender = next(seat);
        derive_bout();
        nlegal = -1;
    }

    // Game._end_bout
    void end_bout(bool took) {
        Mask table = table_mask();
        int d = defender;
        if (took) {
            hands[d] |= table;
            known[d] |= table;
        } else {
            discard |= table;
        }
        na = open_count = 0;
        table_ranks = 0;
        passed = 0;
        taking = false;
        ++bouts;
        last_bout.bouts = bouts;
        last_bout.defender = d;
        last_bout.took = took;
        last_bout.table = table;
        refill(last_bout.drew);
        has_last_bout = true;
        if (!stock_len) {
            int start = out_count;
            for (int s = 0; s < n; ++s)
                if (!(out_mask >> s & 1) && !hands[s]) out_seats[out_count++] = static_cast<int8_t>(s);
            if (out_count > start) {
                group_end[groups++] = static_cast<int8_t>(out_count);
                for (int i = start; i < out_count; ++i) out_mask |= 1 << out_seats[i];
            }
        }
        if (n - popcount(static_cast<Mask>(out_mask)) <= 1) {
            finish(false);
        } else if (rules.max_bouts >= 0 && bouts >= rules.max_bouts) {
            finish(true);
        } else {
            open_bout(took || (out_mask >> d & 1) ? next(d) : d);
        }
    }

    // Game._refill
    void refill(int8_t* drew) {
        for (int s = 0; s < MAX_PLAYERS; ++s) drew[s] = 0;
        if (!stock_len) return;
        int order[MAX_PLAYERS];
        int count = 0;
        int first = opener != defender ? opener : next(defender);
        order[count++] = first;
        for (int s = next(first); s != first; s = next(s))
            if (s != defender) order[count++] = s;
        order[count++] = defender;
        for (int k = 0; k < count; ++k) {
            int seat = order[k];
            int need = rules.deal_size - popcount(hands[seat]);
            while (need > 0 && stock_len) {
                int card = stock[--stock_len];
                hands[seat] |= Mask(1) << card;
                if (card == trump_card) known[seat] |= Mask(1) << card;
                --need;
                ++drew[seat];
            }
        }
    }

    // Game._finish: the seats not out are placed together, or by hand size under the bout cap.
    void finish(bool capped) {
        int8_t order[MAX_PLAYERS];      // every seat, group after group
        int8_t ends[MAX_PLAYERS + 1];   // group g is order[ends[g - 1] .. ends[g])
        int count = 0, ngroups = 0;
        for (int g = 0; g < groups; ++g) {
            for (int i = g ? group_end[g - 1] : 0; i < group_end[g]; ++i) order[count++] = out_seats[i];
            ends[ngroups++] = static_cast<int8_t>(count);
        }
        int remaining = 0;
        for (int s = 0; s < n; ++s) remaining += !(out_mask >> s & 1);
        if (capped) {  // fewest cards first; seats with the same count share a place
            for (int size = 0; size <= 52; ++size) {
                int start = count;
                for (int s = 0; s < n; ++s)
                    if (!(out_mask >> s & 1) && popcount(hands[s]) == size) order[count++] = static_cast<int8_t>(s);
                if (count > start) ends[ngroups++] = static_cast<int8_t>(count);
            }
        } else if (remaining) {
            for (int s = 0; s < n; ++s)
                if (!(out_mask >> s & 1)) order[count++] = static_cast<int8_t>(s);
            ends[ngroups++] = static_cast<int8_t>(count);
        }
        int place = 1;
        for (int g = 0; g < ngroups; ++g) {
            int start = g ? ends[g - 1] : 0;
            for (int i = start; i < ends[g]; ++i) result.placings[order[i]] = static_cast<int8_t>(place);
            place += ends[g] - start;
        }
        int last_start = ngroups > 1 ? ends[ngroups - 2] : 0, last_size = ends[ngroups - 1] - last_start;
        bool has_fool = last_size == 1 && (capped || remaining);
        result.fool = has_fool ? order[last_start] : -1;
        result.drawn = 0;
        result.drawn_count = 0;
        if (!has_fool)
            for (int i = last_start; i < ends[ngroups - 1]; ++i) {
                result.drawn |= Mask(1) << order[i];
                result.drawn_seats[result.drawn_count++] = order[i];
            }
        for (int s = 0; s < n; ++s) result.points[s] = static_cast<int8_t>(n - result.placings[s]);
        result.capped = capped;
        over = true;
        to_act = -1;
        nlegal = -1;
        cap = limit = 0;
        nthrowers = 0;
    }

    // legality.refusal_of, after Game.refusal's first checks: the code of the first check (legality.CHECKS) that stops
    // a well-formed action.
    int refusal(int action) {
        if (over) return GAME_OVER;
        if (action < 0 || action >= lay.size()) return NOT_AN_ACTION;
        if (is_legal(action)) return LEGAL;
        int seat = to_act;
        bool def = defending(seat);
        int kind = action >= lay.take() ? (action == lay.take() ? 3 : 4) : action / lay.deck;  // actions.KINDS
        if (kind >= 1 && kind <= 3 && !def) return NOT_DEFENDING;
        if ((kind == 0 || kind == 4) && def) return DEFENDING;
        if (kind == 4) return FIRST_CARD;
        int card = lay.card_of(action % lay.deck);
        if (!(hands[seat] >> card & 1)) return NOT_HELD;
        if (kind == 0) return WRONG_RANK;
        if (kind == 2) return no_transfer() != TRANSFER_OK ? NO_TRANSFER : WRONG_RANK;
        return CANNOT_BEAT;
    }
};

// ----- the observation (durak_env/observation.py: the layout in its module docstring) ----------------------
inline int observation_size(const Rules& r, bool universal) {
    int d = universal ? 52 : r.deck_size, n = universal ? MAX_PLAYERS : r.num_players;
    return (6 + n) * d + 4 + 6 * n + 5 + (universal ? n + 18 : 0);
}

// observation.rule_features
inline void rule_features(const Rules& r, float* out) {
    static const int decks[3] = {24, 36, 52};
    int k = 0;
    for (int d : decks) out[k++] = r.deck_size == d ? 1.0f : 0.0f;
    out[k++] = static_cast<float>(r.deal_size / 6.0);
    for (int t = 0; t < 3; ++t) out[k++] = r.throw_in == t ? 1.0f : 0.0f;
    out[k++] = r.before_beaten;
    out[k++] = r.transfer;
    out[k++] = static_cast<float>(r.max_attacks / 6.0);
    out[k++] = static_cast<float>(r.max_attacks_early / 6.0);
    out[k++] = !r.early_first_discard;  // EARLY_ENDS = ("first_bout", "first_discard")
    out[k++] = r.early_first_discard;
    out[k++] = r.bout_start;            // DEFENDER_LIMITS = ("bout_start", "current_hand")
    out[k++] = !r.bout_start;
    out[k++] = r.after_take;
    out[k++] = r.open_discard;
    out[k++] = r.max_bouts >= 0;
}

// BYTE_FLOATS[b]: the eight bits of b, lowest first, as 0.0f / 1.0f (a card plane is written a byte at a time).
struct ByteFloats {
    float f[256][8];
    ByteFloats() {
        for (int b = 0; b < 256; ++b)
            for (int k = 0; k < 8; ++k) f[b][k] = static_cast<float>(b >> k & 1);
    }
};

inline const ByteFloats& byte_floats() {
    static const ByteFloats t;
    return t;
}

// A set of cards with bit i = the layout's slot i (the deck's cards run in id order, a suit at a time).
inline Mask by_slot(Mask cards, const Layout& lay) {
    if (lay.low == 0) return cards;
    Mask width = (Mask(1) << lay.width) - 1, out = 0;
    for (int s = 0; s < 4; ++s) out |= (cards >> (s * NUM_RANKS + lay.low) & width) << (s * lay.width);
    return out;
}

// ObservationEncoder._write: ``seat``'s observation of ``g`` into out[0 .. observation_size), slice after slice.
inline void encode(const Game& g, int seat, bool universal, float* out) {
    const Rules& r = g.rules;
    const int n = g.n, seats = universal ? MAX_PLAYERS : n;
    const Layout lay = Layout::of(universal ? 52 : r.deck_size);
    const int d = lay.deck;
    const ByteFloats& bytes = byte_floats();
    // A card plane, eight slots at a time: the last byte's spare floats land where the next slice begins, and
    // that slice (written after, always) overwrites them.
    auto plane = [&bytes, d](float* o, Mask cards, const Layout& layout) {
        Mask slots = by_slot(cards, layout);
        for (int slot = 0; slot < d; slot += 8, o += 8) std::memcpy(o, bytes.f[slots >> slot & 0xff], sizeof(float) * 8);
        return o - (((d + 7) & ~7) - d);
    };
    Mask open = 0, beaten = 0, defence = 0, next_to_beat = 0;
    for (int i = 0; i < g.na; ++i) {
        Mask a = Mask(1) << g.attacks[i];
        if (g.defences[i] < 0) {
            if (!open) next_to_beat = a;
            open |= a;
        } else {
            beaten |= a;
            defence |= Mask(1) << g.defences[i];
        }
    }
    out = plane(out, g.hands[seat], lay);
    out = plane(out, open, lay);
    out = plane(out, beaten, lay);
    out = plane(out, defence, lay);
    out = plane(out, next_to_beat, lay);
    out = plane(out, r.open_discard ? g.discard : 0, lay);
    out = plane(out, Mask(1) << g.trump_card, lay);
    for (int s = 0; s < 4; ++s) *out++ = g.trump == s;
    int order[MAX_PLAYERS];  // the seats from this one clockwise: relative seat k is absolute seat order[k]
    for (int k = 0, s = seat; k < n; ++k, s = s + 1 == n ? 0 : s + 1) order[k] = s;
    for (int k = 1; k < seats; ++k) out = plane(out, k < n ? g.known[order[k]] : 0, lay);
    const double deck = r.deck_size;
    for (int k = 0; k < seats; ++k) *out++ = k < n ? static_cast<float>(popcount(g.hands[order[k]]) / deck) : 0.0f;
    auto seat_flags = [&](int mask) {
        for (int k = 0; k < n; ++k) *out++ = static_cast<float>(mask >> order[k] & 1);
        for (int k = n; k < seats; ++k) *out++ = 0.0f;
    };
    auto one_hot = [&](int who) { seat_flags(who < 0 ? 0 : 1 << who); };
    seat_flags(g.out_mask);
    one_hot(g.over ? -1 : g.attacker);
    one_hot(g.over ? -1 : g.defender);
    one_hot(g.to_act);
    seat_flags(g.passed);
    *out++ = static_cast<float>(g.stock_len / deck);
    *out++ = static_cast<float>(popcount(g.discard) / deck);
    *out++ = g.taking;
    *out++ = static_cast<float>(g.room() / static_cast<double>(r.max_attacks));
    *out++ = r.max_bouts >= 0 ? static_cast<float>(g.bouts / static_cast<double>(r.max_bouts)) : 0.0f;
    if (universal) {
        for (int k = 0; k < seats; ++k) *out++ = k < n;
        rule_features(r, out);
    }
}

}  // namespace durak
