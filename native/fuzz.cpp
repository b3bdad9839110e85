// A libFuzzer target for the native engine (benchmarks/fuzz_native.py builds it with clang, AddressSanitizer and
// UndefinedBehaviorSanitizer, and runs it): rules, deals, action sequences with illegal actions among them,
// positions assembled from arbitrary facts, both observation layouts, the vector core and the tree search,
// all driven by the fuzzer's bytes.  Whatever the bytes, nothing may read or write outside its memory, overflow
// or loop for ever, and the engine's own checks must hold: every legal action is refused as LEGAL and played,
// an illegal one is refused with a code and never played, an observation stays inside its size.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "durak.hpp"
#include "search.hpp"
#include "solve.hpp"
#include "vector.hpp"

using namespace durak;

namespace {

struct Bytes {  // the fuzzer's input, read front to back; zeros once it runs out
    const uint8_t* data;
    size_t size, at = 0;
    uint8_t u8() { return at < size ? data[at++] : 0; }
    uint16_t u16() { return static_cast<uint16_t>(u8() | u8() << 8); }
    uint64_t u64() {
        uint64_t v = 0;
        for (int k = 0; k < 8; ++k) v |= static_cast<uint64_t>(u8()) << (8 * k);
        return v;
    }
    bool done() const { return at >= size; }
};

void require(bool ok) {
    if (!ok) std::abort();
}

Rules rules_of(Bytes& in) {
    Rules r;
    r.num_players = 2 + in.u8() % 5;
    static const int decks[3] = {24, 36, 52};
    r.deck_size = decks[in.u8() % 3];
    r.deal_size = 1 + in.u8() % 8;
    r.throw_in = in.u8() % 3;
    r.before_beaten = in.u8() & 1;
    r.transfer = in.u8() & 1;
    r.max_attacks = 1 + in.u8() % 26;
    r.max_attacks_early = 1 + in.u8() % r.max_attacks;
    r.early_first_discard = in.u8() & 1;
    r.bout_start = in.u8() & 1;
    r.after_take = in.u8() & 1;
    r.no_trump_lead = in.u8() % 4;
    r.open_discard = in.u8() & 1;
    r.max_bouts = in.u8() % 4 == 0 ? -1 : 1 + in.u8() % 200;
    return r;
}

// ``consistent``: a position a deal reaches (every card once); else facts made up by the bytes, where only memory
// safety is asked (a seat with no card may be asked to lead, a stock may name a card twice).
void encode_both(const Game& g, int seat, bool consistent) {
    static std::vector<float> buffer;
    for (bool universal : {false, true}) {
        size_t size = observation_size(g.rules, universal);
        buffer.assign(size + 16, -7.0f);  // the planes' spare floats may land past a plane, never past the vector
        encode(g, seat, universal, buffer.data());
        for (size_t k = size; k < size + 16; ++k) require(buffer[k] == -7.0f);
        size_t features = universal ? size - 18 : size;  // the rule features count cards by six: up to 26 / 6
        if (consistent)
            for (size_t k = 0; k < size; ++k)
                require(buffer[k] >= 0.0f && buffer[k] <= (k < features ? 1.0f : 26.0f / 6));
    }
}

// Play the game on with actions from the bytes: legal ones (by index) and arbitrary ones.
void play_on(Game& g, Bytes& in, int moves, bool consistent = true) {
    for (int k = 0; k < moves && !g.over && !in.done(); ++k) {
        int count = g.legal_actions();
        if (!count) {
            require(!consistent);
            break;
        }
        encode_both(g, g.to_act, consistent);
        uint8_t how = in.u8();
        int action = how & 1 ? static_cast<int16_t>(in.u16()) : g.legal[in.u8() % count];
        int code = g.refusal(action);
        require((code == LEGAL) == g.is_legal(action));
        if (code == LEGAL) g.play(action);
        else require(code >= GAME_OVER && code <= NOT_LEGAL && code != NOT_YOUR_TURN);
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    Bytes in{data, size};
    Rules r = rules_of(in);
    if (!r.valid()) return 0;
    switch (in.u8() % 5) {
        case 0: {  // a deal played on by the bytes, then a clone played on
            PyRandom rng;
            rng.seed(in.u64());
            Game g;
            g.deal_seeded(r, rng, in.u8() % r.num_players);
            play_on(g, in, 400);
            Game copy = g;
            play_on(copy, in, 400);
            break;
        }
        case 1: {  // a position assembled from arbitrary facts
            int8_t stock[52], out[6], ends[6], attacks[32], defences[32];
            Mask hands[6], known[6];
            int stock_len = in.u8() % 53, ngroups = in.u8() % 7, na = in.u8() % 33;
            for (int k = 0; k < stock_len; ++k) stock[k] = static_cast<int8_t>(in.u8() % 70 - 3);
            for (int s = 0; s < 6; ++s) hands[s] = in.u64(), known[s] = in.u64() & hands[s];
            int total = 0;
            for (int k = 0; k < ngroups; ++k) {
                total += in.u8() % 3;
                ends[k] = static_cast<int8_t>(total);
            }
            for (int k = 0; k < 6; ++k) out[k] = static_cast<int8_t>(in.u8() % 8 - 1);
            for (int k = 0; k < na; ++k) {
                attacks[k] = static_cast<int8_t>(in.u8() % 60);
                defences[k] = static_cast<int8_t>(in.u8() % 61 - 1);
            }
            Game g;
            if (g.assemble(r, in.u8() % 64, stock, stock_len, hands, in.u64(), known, out, ends, ngroups, attacks,
                           defences, na, in.u8() % 8, in.u8() % 8, in.u8() % 8, in.u8() % 64, in.u8() & 1,
                           in.u16() % 300, in.u8() % 8))
                play_on(g, in, 300, false);
            break;
        }
        case 2: {  // the vector core, a few steps of legal actions from the bytes
            int envs = 1 + in.u8() % 4, threads = 1 + in.u8() % 2;
            VectorCore core(r, envs, 1 + in.u16() % 500, threads);
            std::vector<float> obs(static_cast<size_t>(envs) * core.obs_size);
            std::vector<int8_t> mask(static_cast<size_t>(envs) * core.num_actions);
            std::vector<int64_t> seats(envs), actions(envs);
            std::vector<float> rewards(static_cast<size_t>(envs) * r.num_players);
            std::unique_ptr<bool[]> ended(new bool[envs]), truncated(new bool[envs]);
            core.a = Arrays{obs.data(), mask.data(), seats.data(), rewards.data(), ended.get(), truncated.get()};
            for (int i = 0; i < envs; ++i) core.rngs[i].seed(in.u64());
            core.reset();
            for (int step = 0; step < 60 && !in.done(); ++step) {
                for (int i = 0; i < envs; ++i) {
                    Game& g = core.games[i];
                    actions[i] = g.legal[in.u8() % g.legal_actions()];
                }
                require(core.check(actions.data()) == -1);
                core.play(actions.data(), in.u8() & 1);
            }
            break;
        }
        case 4: {  // the searches from a view made up by the bytes, within the ranges the bindings check
            View v;
            v.rules = r;
            int n = r.num_players;
            v.seat = in.u8() % n;
            v.hand = in.u64();
            int na = in.u8() % 8;
            for (int k = 0; k < na; ++k) {
                v.attacks.push_back(static_cast<int8_t>(in.u8() % 52));
                v.defences.push_back(static_cast<int8_t>(in.u8() % 53 - 1));
            }
            v.trump_card = in.u8() % 52;
            v.stock_size = in.u8() % 53;
            for (int s = 0; s < n; ++s) v.hand_sizes[s] = in.u8() % 53, v.known[s] = in.u64();
            v.discard_open = in.u8() & 1;
            v.discard = in.u64();
            int out = in.u8() % 3;
            for (int k = 0; k < out; ++k) v.out_seats.push_back(static_cast<int8_t>(in.u8() % n)), v.group_ends.push_back(
                static_cast<int8_t>(k + 1));
            v.attacker = in.u8() % n, v.defender = in.u8() % n, v.opener = in.u8() % n;
            v.passed = in.u8() % (1 << n), v.taking = in.u8() & 1, v.bouts = in.u8(), v.first_seat = in.u8() % n;
            int64_t made = 0;
            MCTS(in.u64(), 0.7, in.u8() & 1).search(v, 1 + in.u8() % 8, 0.0, made);
            int legal[1] = {in.u8() % 110};
            double totals[1];
            Rng rng(in.u64());
            pimc(v, rng, legal, 1, 1, 0.0, totals);
            NetSearch net(v, in.u64(), 1.5, in.u8() & 1);
            std::vector<float> obs(4 * static_cast<size_t>(net.obs_size)), probs(4 * static_cast<size_t>(net.num_actions), 0.5f);
            std::vector<int8_t> mask(4 * static_cast<size_t>(net.num_actions));
            std::vector<float> values(4, 0.0f);
            if (net.descend_batch(4, obs.data(), mask.data()) > 0)
                net.advance(probs.data(), values.data(), obs.data(), mask.data());
            break;
        }
        default: {  // the tree search from a seat's view of a deal
            PyRandom rng;
            rng.seed(in.u64());
            Game g;
            g.deal_seeded(r, rng, 0);
            play_on(g, in, in.u8());
            if (g.over) break;
            View v;
            v.rules = r;
            v.seat = g.to_act;
            v.hand = g.hands[v.seat];
            for (int k = 0; k < g.na; ++k) v.attacks.push_back(g.attacks[k]), v.defences.push_back(g.defences[k]);
            v.trump_card = g.trump_card;
            v.stock_size = g.stock_len;
            for (int s = 0; s < g.n; ++s) v.hand_sizes[s] = popcount(g.hands[s]), v.known[s] = g.known[s];
            v.discard_open = r.open_discard;
            v.discard = r.open_discard ? g.discard : 0;
            for (int k = 0; k < g.out_count; ++k) v.out_seats.push_back(g.out_seats[k]);
            for (int k = 0; k < g.groups; ++k) v.group_ends.push_back(g.group_end[k]);
            v.attacker = g.attacker, v.defender = g.defender, v.opener = g.opener;
            v.passed = g.passed, v.taking = g.taking, v.bouts = g.bouts, v.first_seat = g.first_seat;
            bool altered = in.u8() % 4 == 0;
            if (altered) v.hand_sizes[in.u8() % g.n] += in.u8() % 5 - 2;  // a view that may not add up
            MCTS search(in.u64(), 0.7, in.u8() & 1);
            int64_t made = 0;
            int action = search.search(v, 1 + in.u8() % 20, 0.0, made);
            if (!altered) require(action >= 0 && g.is_legal(action));
            // the network search, its network's answers made up from the bytes
            bool universal = in.u8() & 1;
            int choice = in.u8();
            bool opponents = choice & 1, fool_stake = choice >> 1 & 1;
            NetSearch net(v, in.u64(), 1.5, universal, opponents, fool_stake);
            std::vector<float> obs(8 * static_cast<size_t>(net.obs_size)), probs(8 * static_cast<size_t>(net.num_actions));
            std::vector<int8_t> mask(8 * static_cast<size_t>(net.num_actions));
            std::vector<float> values(8);
            for (int batch = 0; batch < 4; ++batch) {
                int rows = net.descend_batch(1 + in.u8() % 8, obs.data(), mask.data());
                if (rows < 0) break;
                while (rows > 0) {  // with ``opponents``, rounds until every playout is at a leaf
                    for (auto& p : probs) p = in.u8() / 255.0f;
                    for (auto& x : values) x = in.u8() / 127.5f - 1.0f;
                    rows = net.advance(probs.data(), values.data(), obs.data(), mask.data());
                }
            }
            int legal[MAX_ACTIONS];
            int count = g.legal_actions();
            for (int k = 0; k < count; ++k) legal[k] = g.legal[k];
            int chosen = net.best(legal, count);
            require(g.is_legal(chosen));
            // the endgame solver, where it applies: within its node limit, every move gets a value in -1, 0, 1
            if (solvable(g)) {
                Solver solver(1 + in.u8() * 64);
                int solved[MAX_ACTIONS];
                if (solver.solve(g, solved))
                    for (int k = 0; k < count; ++k) require(solved[k] >= -1 && solved[k] <= 1);
            }
            break;
        }
    }
    return 0;
}
